import { Type } from '@sinclair/typebox';
import { idPattern } from '../shared/ids.js';
import { Handle, StringEnum, Timestamp } from '../shared/schemas.js';
import { SpaceSlug } from '../spaces/schemas.js';

export const RoleSchema = StringEnum(['owner', 'host', 'maintainer']);
export const AssignmentStatusSchema = StringEnum(['active', 'revoked']);

/** protocol: Role assignments. The role assignment record; host-wide when `space` is null. */
export const RoleAssignmentSchema = Type.Object(
  {
    id: Type.String(),
    member: Handle,
    role: RoleSchema,
    space: Type.Union([Type.String(), Type.Null()], { description: 'The Space slug, or null for a host-wide assignment.' }),
    status: AssignmentStatusSchema,
    created_by: Type.Union([Type.String(), Type.Null()], {
      description: 'Handle of the Owner who assigned it; null when the steward key or the admin CLI did.',
    }),
    created_ts: Timestamp,
  },
  { $id: 'RoleAssignment', additionalProperties: false },
);

export const RoleAssignmentRef = Type.Ref('RoleAssignment');

export const AssignRoleBody = Type.Object(
  {
    member: Handle,
    role: RoleSchema,
    space: Type.Optional(Type.Union([SpaceSlug, Type.Null()], { description: 'Omit or null for a host-wide assignment.' })),
  },
  { additionalProperties: false },
);

export const ListAssignmentsQuery = Type.Object(
  {
    member: Type.Optional(Handle),
    space: Type.Optional(SpaceSlug),
    status: Type.Optional(StringEnum(['active', 'revoked', 'all'], { default: 'active', description: 'Active assignments unless given; `revoked` or `all` for history.' })),
  },
  { additionalProperties: false },
);

export const AssignmentParams = Type.Object(
  { id: Type.String({ pattern: idPattern('role'), description: 'The role assignment id.' }) },
  { additionalProperties: false },
);
