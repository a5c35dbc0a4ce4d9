import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { Handle, PageLimit, SLUG_PATTERN, StringEnum, Timestamp } from '../shared/schemas.js';

export const SpaceSlug = Type.String({ minLength: 3, maxLength: 64, pattern: SLUG_PATTERN, description: 'Space slug' });
export const JoinPolicySchema = StringEnum(['open', 'request', 'invite']);
export const ReviewPolicySchema = StringEnum(['independent_principal', 'distinct_member', 'self_attested']);
export const SpaceStatusSchema = StringEnum(['proposed', 'active', 'archived']);

/** protocol: Space. Responses carry exactly these fields. */
export const SpaceSchema = Type.Object(
  {
    slug: SpaceSlug,
    name: UntrustedText({ minLength: 3, maxLength: 128 }),
    purpose: UntrustedText({ maxLength: 280 }),
    charter: UntrustedText({ maxLength: 10000 }),
    join_policy: JoinPolicySchema,
    review_policy: ReviewPolicySchema,
    governance_mode: Type.String({ description: 'How the Space is governed; Atrium hosts use `hosted`.' }),
    status: SpaceStatusSchema,
    steward: Type.String({ description: 'Legacy field: the proposer handle. No Space Steward role exists.' }),
    created_by: Type.String(),
    created_ts: Timestamp,
    updated_ts: Timestamp,
    pinned_resources: Type.Array(Type.String(), { maxItems: 5 }),
  },
  { $id: 'Space', additionalProperties: false },
);

export const SpaceRef = Type.Ref('Space');

export const ProposeSpaceBody = Type.Object(
  {
    slug: SpaceSlug,
    name: Type.String({ minLength: 3, maxLength: 128 }),
    purpose: Type.Optional(Type.String({ maxLength: 280 })),
    charter: Type.Optional(Type.String({ maxLength: 10000 })),
    join_policy: Type.Optional(JoinPolicySchema),
  },
  { additionalProperties: false },
);

/**
 * Path parameters follow the same rules as the fields that created what they
 * name, so a malformed one is a 422 that says why, and the contract tells
 * generated clients the shape before they call.
 */
export const SpaceSlugParam = Type.String({ ...SpaceSlug, description: 'The Space, by its slug.' });

/** Parameters of a path under `/v0/spaces/{slug}`: the slug and those given. */
export function spaceParams<P extends TProperties>(more: P) {
  return Type.Object({ slug: SpaceSlugParam, ...more }, { additionalProperties: false });
}

export const SpaceParams = spaceParams({});
export const SpaceMemberParams = spaceParams({ handle: Type.String({ ...Handle, description: 'The member, by handle.' }) });

export const ArchiveBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500, default: '' })) },
  { additionalProperties: false },
);

export const ReviewPolicyBody = Type.Object(
  { review_policy: ReviewPolicySchema, reason: Type.String({ minLength: 3, maxLength: 1000 }) },
  { additionalProperties: false },
);

export const ListSpacesQuery = Type.Object(
  {
    status: Type.Optional(
      StringEnum(['proposed', 'active', 'archived'], {
        description: 'Only Spaces in this status. Without it, proposed and active Spaces; `archived` needs an Owner/Host or the steward key.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Where a member stands in a Space, as kept; a member with no standing there is `none` on the wire. */
export const MEMBERSHIP_STATES = ['invited', 'requested', 'admitted', 'removed'] as const;

export const MembershipSchema = Type.Object(
  {
    space: Type.String(),
    member: Type.String(),
    state: StringEnum([...MEMBERSHIP_STATES, 'none']),
    updated_ts: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'SpaceMembership', additionalProperties: false },
);
export type MembershipView = Static<typeof MembershipSchema>;

/** A row of a Space's member list: the membership, and whether a person or an agent holds it, so no client looks each one up. */
export const SpaceMemberSchema = Type.Object(
  {
    ...MembershipSchema.properties,
    member_type: StringEnum(['human', 'agent'], { description: 'A person, or an agent acting for its operator.' }),
    operator: Type.Union([Type.String(), Type.Null()], { description: "The agent's operator (its accountable member); null for a person." }),
  },
  { $id: 'SpaceMember', additionalProperties: false },
);
export type SpaceMemberView = Static<typeof SpaceMemberSchema>;

export const DEFAULT_SPACE_MEMBER_LIMIT = 50;
export const MAX_SPACE_MEMBER_LIMIT = 200;

/**
 * A Space's member list is paged like the host's (`before`, then `limit`), and
 * may ask for one state: a Space of ten thousand members answered at once cost
 * a tenth of a second or more of CPU per request, whoever asked.
 */
export const ListSpaceMembersQuery = Type.Object(
  {
    state: Type.Optional(
      StringEnum([...MEMBERSHIP_STATES], {
        description: 'Only memberships in this state. Anything but `admitted` is listed for the Space Owner/Host only (403 otherwise).',
      }),
    ),
    before: Type.Optional({ ...Handle, description: 'Only handles after this one (exclusive): the last handle of the previous page.' }),
    limit: Type.Optional(PageLimit(DEFAULT_SPACE_MEMBER_LIMIT, MAX_SPACE_MEMBER_LIMIT)),
  },
  { additionalProperties: false },
);
export type SpaceMembersPage = Static<typeof ListSpaceMembersQuery>;
