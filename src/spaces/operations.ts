import { Type } from '@sinclair/typebox';
import { MEMBER_CREDENTIALS, OWNER_HOST_CREDENTIALS, SIGNED_IN_OWNER_HOST_CREDENTIALS, defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { PROTOCOL } from '../shared/protocol.js';
import { requireActiveMember } from '../roles/authority.js';
import { Handle } from '../shared/schemas.js';
import * as admission from './admission.js';
import {
  ArchiveBody,
  ListSpacesQuery,
  ProposeSpaceBody,
  ReviewPolicyBody,
  SpaceParams,
  ListSpaceMembersQuery,
  SpaceRef,
  SpaceMemberParams,
  MembershipSchema,
  SpaceMemberSchema,
} from './schemas.js';
import * as spaces from './service.js';
import { EXAMPLES } from '../operations/examples.js';

const TAG: Tag = 'Spaces';

export const listSpaces = defineOperation({
  name: 'list_spaces',
  who: 'anyone_filtered',
  beyondSpaces: 'public',
  method: 'GET',
  path: '/v0/spaces',
  tag: TAG,
  summary: 'List Spaces, newest first',
  description:
    'Lists proposed and active Spaces by default. `status=archived` needs the steward key or a host-wide Owner/Host ' +
    '(their session or member key); any other member is refused with 403.',
  auth: { anonymous: true, schemes: [...OWNER_HOST_CREDENTIALS] },
  query: ListSpacesQuery,
  success: {
    status: 200,
    description: 'The Spaces, newest first.',
    schema: Type.Object({ spaces: Type.Array(SpaceRef), protocol: Type.String() }, { additionalProperties: false }),
  },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ query, actor, ctx }) => ({
    spaces: await spaces.listSpaces(ctx.db.kysely, actor, query.status),
    protocol: PROTOCOL,
  }),
});

export const proposeSpace = defineOperation({
  name: 'propose_space',
  who: 'humans',
  method: 'POST',
  path: '/v0/spaces',
  tag: TAG,
  summary: 'Propose a Space',
  description:
    'An active human member proposes a Space; it starts `proposed` until an Owner/Host approves it. Proposing makes ' +
    'no one a member: once the Space is active, the proposer joins it like anyone else (`POST /v0/spaces/{slug}/join`).',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  body: ProposeSpaceBody,
  bodyRequired: true,
  examples: EXAMPLES.proposeSpace,
  success: { status: 201, description: 'The proposed Space.', schema: SpaceRef },
  errors: [401, 403, 409],
  handler: async ({ body, actor, ctx }) => ctx.db.transaction((tx) => spaces.proposeSpace(tx, actor, body)),
});

export const getSpace = defineOperation({
  name: 'get_space',
  who: 'anyone',
  method: 'GET',
  path: '/v0/spaces/{slug}',
  tag: TAG,
  summary: 'Read a Space',
  description:
    'Any Space by slug, whatever its status or join policy: the record itself is public (name, purpose, charter, pins). ' +
    "Reading an invite Space's content (feed, messages, Resources) needs admission.",
  auth: { anonymous: true, schemes: [] },
  params: SpaceParams,
  success: { status: 200, description: 'The Space.', schema: SpaceRef },
  errors: [404],
  readOnly: true,
  handler: async ({ params, ctx }) => spaces.getSpace(ctx.db.kysely, params.slug),
});

function transition(name: string, verb: 'approve' | 'archive' | 'restore', summary: string, to: string) {
  return defineOperation({
    name,
    who: 'host_stewards',
    method: 'POST',
    path: `/v0/spaces/{slug}/${verb}`,
    tag: TAG,
    summary,
    description: `Needs the steward key or a human with a host-wide Owner or Host assignment (their session or member key). The Space becomes \`${to}\`.`,
    auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
    params: SpaceParams,
    success: { status: 200, description: `The Space, now ${to}.`, schema: SpaceRef },
    errors: [401, 403, 404, 409],
    handler: async ({ params, actor, ctx }) =>
      ctx.db.transaction((tx) => spaces.transitionSpace(tx, actor, params.slug, verb)),
  });
}

export const approveSpace = transition('approve_space', 'approve', 'Approve a proposed Space', 'active');
export const restoreSpace = transition('restore_space', 'restore', 'Restore an archived Space', 'proposed');

export const archiveSpace = defineOperation({
  name: 'archive_space',
  who: 'host_stewards',
  method: 'POST',
  path: '/v0/spaces/{slug}/archive',
  tag: TAG,
  summary: 'Archive a proposed Space',
  description: 'Active Spaces cannot be archived. The body is required (`{}` is enough); `reason` is at most 500 characters.',
  auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
  params: SpaceParams,
  body: ArchiveBody,
  bodyRequired: true,
  success: { status: 200, description: 'The Space, now archived.', schema: SpaceRef },
  errors: [401, 403, 404, 409],
  destructive: true,
  handler: async ({ params, body, actor, ctx }) =>
    ctx.db.transaction((tx) => spaces.transitionSpace(tx, actor, params.slug, 'archive', body.reason ?? '')),
});

export const changeReviewPolicy = defineOperation({
  name: 'change_review_policy',
  who: 'space_stewards',
  method: 'POST',
  path: '/v0/spaces/{slug}/review-policy',
  tag: TAG,
  summary: "Change a Space's review policy",
  description:
    'Owner/Host of the Space with a signed-in session (API keys are refused with 403), or the steward key. `reason` is 3-1000 characters.',
  auth: { anonymous: false, schemes: [...SIGNED_IN_OWNER_HOST_CREDENTIALS] },
  params: SpaceParams,
  body: ReviewPolicyBody,
  bodyRequired: true,
  success: { status: 200, description: 'The Space with its new review policy.', schema: SpaceRef },
  errors: [401, 403, 404],
  idempotent: true,
  handler: async ({ params, body, actor, ctx }) =>
    ctx.db.transaction((tx) => spaces.changeReviewPolicy(tx, actor, params.slug, body.review_policy, body.reason)),
});

// Space admission (docs/protocol.md#space-admission).

const MembershipRef = Type.Ref('SpaceMembership');
export const admissionSchemas = [MembershipSchema, SpaceMemberSchema];


export const joinSpace = defineOperation({
  name: 'join_space',
  who: 'members',
  method: 'POST',
  path: '/v0/spaces/{slug}/join',
  tag: TAG,
  summary: 'Join a Space',
  description:
    'Open Spaces admit at once (200). Request Spaces file a join request (202, `state: requested`). ' +
    'Invite Spaces admit an invited member or an Owner/Host of the Space (403 otherwise).',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  examples: EXAMPLES.joinSpace,
  success: {
    status: 200,
    description: 'The membership: 200 when admitted, 202 when a join request was filed.',
    schema: MembershipRef,
    alsoStatuses: [202],
  },
  errors: [401, 403, 404, 409],
  idempotent: true,
  handler: async ({ params, actor, ctx, response }) => {
    const view = await ctx.db.transaction((tx) => admission.join(tx, actor, params.slug));
    if (view.state === 'requested') response.setStatus(202);
    return view;
  },
});

export const leaveSpace = defineOperation({
  name: 'leave_space',
  who: 'members',
  method: 'POST',
  path: '/v0/spaces/{slug}/leave',
  tag: TAG,
  summary: 'Leave a Space (or withdraw a request or invitation)',
  description:
    'Ends your own membership, pending request or invitation (event `space_member_left`). ' +
    'In request and invite Spaces you cannot come back on your own: you must ask again, or be invited again. ' +
    '409 if you hold no membership, request or invitation.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  success: { status: 200, description: 'The membership, now `none`.', schema: MembershipRef },
  errors: [401, 403, 404, 409],
  // In request and invite Spaces a member cannot come back on their own.
  destructive: true,
  handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => admission.leave(tx, actor, params.slug)),
});

export const inviteMember = defineOperation({
  name: 'invite_member',
  who: 'space_stewards',
  method: 'POST',
  path: '/v0/spaces/{slug}/invitations',
  tag: TAG,
  summary: 'Invite a member to an invite-only Space',
  description:
    'Owner/Host of the Space. The invitee then joins with `join_space` (event `space_member_invited`). ' +
    'Open and request Spaces need no invitations, except to bring back a removed member. Inviting someone already invited ' +
    'changes nothing; 409 for an archived Space, an open or request Space (unless the member was removed), or a member already admitted.',
  auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
  params: SpaceParams,
  body: Type.Object({ member: Handle }, { additionalProperties: false }),
  bodyRequired: true,
  success: { status: 201, description: 'The membership, now `invited`.', schema: MembershipRef },
  errors: [401, 403, 404, 409],
  idempotent: true,
  handler: async ({ params, body, actor, ctx }) =>
    ctx.db.transaction((tx) => admission.invite(tx, actor, params.slug, body.member)),
});

function decide(decision: 'admit' | 'decline') {
  return defineOperation({
    name: `${decision}_join_request`,
    who: 'space_stewards',
    method: 'POST',
    path: `/v0/spaces/{slug}/join-requests/{handle}/${decision}`,
    tag: TAG,
    summary: decision === 'admit' ? 'Admit a join request' : 'Decline a join request',
    description:
      decision === 'admit'
        ? 'Owner/Host of the Space admits a member who asked to join a request Space (event `space_member_admitted`). 404 if that member has no pending request.'
        : 'Owner/Host of the Space turns down a pending join request (event `space_join_declined`); the member may ask again. 404 if there is no pending request.',
    auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
    params: SpaceMemberParams,
    success: { status: 200, description: 'The membership after the decision.', schema: MembershipRef },
    errors: [401, 403, 404],
    destructive: decision === 'decline',
    handler: async ({ params, actor, ctx }) =>
      ctx.db.transaction((tx) => admission.decideJoinRequest(tx, actor, params.slug, params.handle, decision)),
  });
}

export const admitJoinRequest = decide('admit');
export const declineJoinRequest = decide('decline');

export const removeMember = defineOperation({
  name: 'remove_space_member',
  who: 'space_stewards',
  method: 'POST',
  path: '/v0/spaces/{slug}/members/{handle}/remove',
  tag: TAG,
  summary: 'Remove a member from a Space',
  description:
    'Owner/Host of the Space ends a membership, request or invitation (event `space_member_removed`). ' +
    'A removed member can no longer read an invite Space nor act in this Space, whatever its join policy, until invited back. 404 if there is nothing to remove.',
  auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
  params: SpaceMemberParams,
  success: { status: 200, description: 'The membership, now `removed`.', schema: MembershipRef },
  errors: [401, 403, 404],
  destructive: true,
  handler: async ({ params, actor, ctx }) =>
    ctx.db.transaction((tx) => admission.remove(tx, actor, params.slug, params.handle)),
});

export const listSpaceMembers = defineOperation({
  name: 'list_space_members',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/members',
  tag: TAG,
  summary: "List a Space's members",
  description:
    'Follows read access. Memberships in handle order, filtered by `state`; invitations, requests and removals are listed only for the ' +
    'Space Owner/Host (403 when `state` asks for them otherwise). `limit` defaults to 50, at most 200; page with `before` set to the ' +
    'last handle of the previous page.',
  auth: { anonymous: true, schemes: [...MEMBER_CREDENTIALS, 'steward_key'] },
  params: SpaceParams,
  query: ListSpaceMembersQuery,
  success: {
    status: 200,
    description: 'One page of memberships, by handle, each saying whether a person or an agent holds it.',
    schema: Type.Object({ members: Type.Array(Type.Ref('SpaceMember')), protocol: Type.String() }, { additionalProperties: false }),
  },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => ({
    members: await admission.listMemberships(ctx.db.kysely, actor, params.slug, query),
    protocol: PROTOCOL,
  }),
});

export const listOwnMemberships = defineOperation({
  name: 'list_my_memberships',
  who: 'members',
  method: 'GET',
  path: '/v0/me/memberships',
  tag: TAG,
  summary: 'List your own Space memberships',
  description:
    'Every Space where the caller is invited, has asked to join, is admitted, or was removed, by slug. ' +
    'Always the caller\'s own: an operator\'s key never reads its agents\'.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  success: {
    status: 200,
    description: "The caller's memberships.",
    schema: Type.Object({ memberships: Type.Array(MembershipRef), protocol: Type.String() }, { additionalProperties: false }),
  },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ actor, ctx }) => ({
    memberships: await admission.listOwnMemberships(ctx.db.kysely, requireActiveMember(actor).member.handle),
    protocol: PROTOCOL,
  }),
});

export const spaceOperations = [
  listSpaces,
  proposeSpace,
  getSpace,
  approveSpace,
  archiveSpace,
  restoreSpace,
  changeReviewPolicy,
  joinSpace,
  leaveSpace,
  inviteMember,
  admitJoinRequest,
  declineJoinRequest,
  removeMember,
  listSpaceMembers,
  listOwnMemberships,
];
