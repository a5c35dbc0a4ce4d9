import { Type } from '@sinclair/typebox';
import { type AnyOperation, MEMBER_CREDENTIALS, SIGNED_IN_OWNER_HOST_CREDENTIALS, defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { PROTOCOL } from '../shared/protocol.js';
import { eventActor, requireActiveMember, requireHostWideOwner, requireOwnerOrHost } from './authority.js';
import { AssignmentParams, AssignRoleBody, ListAssignmentsQuery, RoleAssignmentRef, RoleAssignmentSchema } from './schemas.js';
import * as roles from './service.js';

/** Role administration is for signed-in humans or the steward key, never API keys (docs/members-and-roles.md). */
const TAG: Tag = 'Roles';

export const assignRole = defineOperation({
  name: 'assign_role',
  who: 'host_owners',
  method: 'POST',
  path: '/v0/role-assignments',
  tag: TAG,
  summary: 'Assign a role',
  description:
    'Steward key or a signed-in host-wide Owner. `owner` and `host` are host-wide when `space` is omitted or scoped to one Space; ' +
    '`maintainer` always names a Space. Agents never hold `owner` or `host`. An unknown member, Space or role is a 422.',
  auth: { anonymous: false, schemes: [...SIGNED_IN_OWNER_HOST_CREDENTIALS] },
  body: AssignRoleBody,
  bodyRequired: true,
  success: { status: 201, description: 'The new, active assignment.', schema: RoleAssignmentRef },
  errors: [401, 403, 409],
  handler: async ({ body, actor, ctx }) =>
    ctx.db.transaction(async (tx) => {
      await requireHostWideOwner(tx.db, actor);
      return roles.assignRole(tx, eventActor(actor), { member: body.member, role: body.role, space: body.space ?? null });
    }),
});

export const listRoleAssignments = defineOperation({
  name: 'list_role_assignments',
  who: 'host_stewards',
  method: 'GET',
  path: '/v0/role-assignments',
  tag: TAG,
  summary: 'List role assignments',
  description:
    'Active assignments, oldest first; `status=revoked` or `status=all` shows history. `member` and `space` filter exactly ' +
    '(`space` matches assignments scoped to that Space, not host-wide ones). Steward key or a host-wide Owner/Host sign-in; ' +
    'an Owner/Host of one Space may list with `space` set to that Space.',
  auth: { anonymous: false, schemes: [...SIGNED_IN_OWNER_HOST_CREDENTIALS] },
  query: ListAssignmentsQuery,
  success: {
    status: 200,
    description: 'The matching assignments.',
    schema: Type.Object(
      { role_assignments: Type.Array(RoleAssignmentRef), protocol: Type.String() },
      { additionalProperties: false },
    ),
  },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ query, actor, ctx }) => {
    await requireOwnerOrHost(
      ctx.db.kysely,
      actor,
      query.space === undefined ? { hostWideOnly: true, signedIn: true } : { space: query.space, signedIn: true },
    );
    return {
      role_assignments: await roles.listAssignments(ctx.db.kysely, {
        ...(query.member !== undefined ? { member: query.member } : {}),
        ...(query.space !== undefined ? { space: query.space } : {}),
        status: query.status ?? 'active',
      }),
      protocol: PROTOCOL,
    };
  },
});

export const revokeRoleAssignment = defineOperation({
  name: 'revoke_role_assignment',
  who: 'host_owners',
  method: 'POST',
  path: '/v0/role-assignments/{id}/revoke',
  tag: TAG,
  summary: 'Revoke a role assignment',
  description:
    'Steward key or a signed-in host-wide Owner. The assignment stays on record with status `revoked`. ' +
    'An owner cannot revoke their own host-wide owner assignment (409).',
  auth: { anonymous: false, schemes: [...SIGNED_IN_OWNER_HOST_CREDENTIALS] },
  params: AssignmentParams,
  success: { status: 200, description: 'The assignment, now revoked.', schema: RoleAssignmentRef },
  errors: [401, 403, 404, 409],
  destructive: true,
  handler: async ({ params, actor, ctx }) =>
    ctx.db.transaction(async (tx) => {
      await requireHostWideOwner(tx.db, actor);
      return roles.revokeRole(tx, eventActor(actor), params.id);
    }),
});

/** Named schemas this module adds to the contract. */
export const roleSchemas = [RoleAssignmentSchema];

/** Role assignments (protocol: Role assignments). */
export const listOwnRoleAssignments = defineOperation({
  name: 'list_my_role_assignments',
  who: 'members',
  beyondSpaces: 'own',
  method: 'GET',
  path: '/v0/me/role-assignments',
  tag: TAG,
  summary: 'List your own roles',
  description:
    "The caller's active role assignments, host-wide and per Space, oldest first, so a client can offer only what its member may do. " +
    'Any member may read their own; listing anyone else\'s needs an Owner/Host (`GET /v0/role-assignments`).',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  success: {
    status: 200,
    description: "The caller's active assignments.",
    schema: Type.Object({ role_assignments: Type.Array(RoleAssignmentRef), protocol: Type.String() }, { additionalProperties: false }),
  },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ actor, ctx }) => ({
    role_assignments: await roles.listAssignments(ctx.db.kysely, { member: requireActiveMember(actor).member.handle }),
    protocol: PROTOCOL,
  }),
});

export const roleOperations: AnyOperation[] = [assignRole, listRoleAssignments, listOwnRoleAssignments, revokeRoleAssignment];
