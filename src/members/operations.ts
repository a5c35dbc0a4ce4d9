import { Type } from '@sinclair/typebox';
import type { Actor } from '../identity/actor.js';
import { type AnyOperation, ANY_CREDENTIAL, OWNER_HOST_CREDENTIALS, defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { PROTOCOL } from '../shared/protocol.js';
import { consumeRateLimit } from '../shared/rate-limit.js';
import { registerAgent as register } from './agents.js';
import { confirmAgent as confirm, moveMember, type MemberMove } from './lifecycle.js';
import { ListMembersQuery, listMembers } from './listing.js';
import type { MemberRecord } from './records.js';
import { AgentRegistrationSchema, MemberHandleParams, MemberRef, memberView, RegisterAgentBody, type MemberView } from './schemas.js';
import { getMember } from './service.js';

const TAG: Tag = 'Members';

export const REGISTRATION_NOTE =
  'Store this key now: it is shown only once and cannot be recovered. ' +
  'The agent stays pending, and every action with the key is refused, until its operator confirms it ' +
  '(`atrium agents confirm <handle>`) and an Owner or Host of this host approves it.';

/** protocol: Member. `email` and `email_verified` only for the steward key or the member itself. */
function viewFor(actor: Actor, member: MemberRecord, baseUrl: string): MemberView {
  const isSelf = actor.kind === 'member' && actor.member.handle === member.handle;
  return memberView(member, baseUrl, { private: actor.kind === 'steward' || isSelf });
}

export const registerAgent = defineOperation({
  name: 'register_agent',
  who: 'anyone',
  createsCredential: true,
  method: 'POST',
  path: '/v0/agents',
  tag: TAG,
  summary: 'Register an agent',
  description:
    'Anonymous calls are accepted. `operator` must be the handle of a registered, active human member. ' +
    'The agent starts `pending` with `operator_confirmed: false`; its key (shown exactly once) authenticates but every ' +
    'action is refused with 403 until the operator confirms the agent and an Owner/Host approves it. ' +
    'Handles are never reused, across humans and agents. ' +
    'Anonymous registrations are limited per client address (ATRIUM_AGENT_REGISTRATION_RATE_LIMIT per hour, default 20): ' +
    'beyond it 429 with Retry-After.',
  auth: { anonymous: true, schemes: ['member_key', 'session', 'steward_key'] },
  body: RegisterAgentBody,
  bodyRequired: true,
  success: { status: 201, description: 'The pending agent, its key (shown once) and a note.', schema: AgentRegistrationSchema },
  errors: [401, 403, 409, 429],
  handler: async ({ body, actor, ctx, clientAddress }) => {
    const registered = await ctx.db.transaction(async (tx) => {
      // Anyone may register an agent, so anonymous registration is what needs a
      // limit; a signed-in registrar is accountable for what they create.
      if (actor.kind === 'anonymous') {
        await consumeRateLimit(tx, {
          bucket: 'agent_registration',
          keyDigest: ctx.addressDigest(clientAddress),
          limit: ctx.config.agentRegistrationRateLimit,
          windowMs: 60 * 60 * 1000,
          detail: 'too many agent registrations from this address; try again later',
        });
      }
      return register(tx, actor, body);
    });
    return {
      member: memberView(registered.member, ctx.config.baseUrl, { private: false }),
      key: registered.key,
      note: REGISTRATION_NOTE,
    };
  },
});

export const getMemberOperation = defineOperation({
  name: 'get_member',
  who: 'anyone_filtered',
  beyondSpaces: 'public',
  method: 'GET',
  path: '/v0/members/{handle}',
  tag: TAG,
  summary: 'Read a member',
  description:
    'Public. `email` and `email_verified` appear only for the steward key or the member itself; ' +
    'legacy operator values that look like e-mail addresses are redacted in public responses.',
  auth: { anonymous: true, schemes: ['member_key', 'session', 'steward_key'] },
  params: MemberHandleParams,
  success: { status: 200, description: 'The member.', schema: MemberRef },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => viewFor(actor, await getMember(ctx.db.kysely, params.handle), ctx.config.baseUrl),
});

export const listMembersOperation = defineOperation({
  name: 'list_members',
  who: 'anyone_filtered',
  beyondSpaces: 'public',
  method: 'GET',
  path: '/v0/members',
  tag: TAG,
  summary: 'List members',
  description:
    'Members in handle order, filtered by `type`, `status` and `operator`. Active members are public; pending and suspended ' +
    'ones are listed for a host-wide Owner/Host (session or member key), the steward key, or an operator asking for their own ' +
    'agents with `operator=<your handle>` (403 otherwise when `status` asks for them). `limit` defaults to 50, at most 200; page ' +
    'with `before` set to the last handle of the previous page.',
  auth: { anonymous: true, schemes: ['member_key', 'session', 'steward_key'] },
  query: ListMembersQuery,
  success: {
    status: 200,
    description: 'One page of members.',
    schema: Type.Object({ members: Type.Array(MemberRef), protocol: Type.String() }, { additionalProperties: false }),
  },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ query, actor, ctx }) => ({
    members: (await listMembers(ctx.db.kysely, actor, query)).map((m) => viewFor(actor, m, ctx.config.baseUrl)),
    protocol: PROTOCOL,
  }),
});

function statusMove(move: MemberMove, path: string, summary: string, description: string) {
  return defineOperation({
    name: `${move}_${path.startsWith('/v0/agents') ? 'agent' : 'member'}`,
    who: 'host_stewards',
    ...(move === 'approve' ? { createsCredential: true as const } : {}),
    method: 'POST',
    path,
    tag: TAG,
    summary,
    description: `${description} Needs the steward key or a human with a host-wide Owner or Host assignment (their session or member key).`,
    auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
    params: MemberHandleParams,
    success: { status: 200, description: 'The member after the change.', schema: MemberRef },
    errors: [401, 403, 404, 409],
    destructive: move === 'suspend',
    handler: async ({ params, actor, ctx }) => {
      const member = await ctx.db.transaction((tx) => {
        // Other nodes hear of it from the database; this one forgets at once (docs/identity.md, "Keeping key resolutions").
        tx.afterCommit(() => ctx.memberKeys.forget());
        return moveMember(tx, actor, params.handle, move);
      });
      return viewFor(actor, member, ctx.config.baseUrl);
    },
  });
}

export const confirmAgent = defineOperation({
  name: 'confirm_agent',
  who: 'operators',
  createsCredential: true,
  method: 'POST',
  path: '/v0/agents/{handle}/confirm',
  tag: TAG,
  summary: "Confirm being an agent's operator",
  description:
    "The agent's named operator (their session or member key) or the steward key vouches for the agent: " +
    '`operator_confirmed` becomes true and event `agent_operator_confirmed` is emitted. Until then the agent cannot be ' +
    "approved and its completions record no accountable principal. Anyone else is refused with 403; a human's handle is 404. " +
    'Confirming again is 200 with no second event.',
  auth: { anonymous: false, schemes: [...ANY_CREDENTIAL] },
  params: MemberHandleParams,
  success: { status: 200, description: 'The agent, with `operator_confirmed: true`.', schema: MemberRef },
  errors: [401, 403, 404],
  idempotent: true,
  handler: async ({ params, actor, ctx }) => {
    const member = await ctx.db.transaction((tx) => confirm(tx, actor, params.handle));
    return viewFor(actor, member, ctx.config.baseUrl);
  },
});

export const approveAgent = statusMove(
  'approve',
  '/v0/agents/{handle}/approve',
  'Approve a pending agent',
  'The agent becomes `active` and its key starts working. 409 if it is not pending, and 409 while its operator has not ' +
    'confirmed it; an operator approving their own agent confirms it in the same step (events `agent_operator_confirmed` ' +
    'and `member_approved`).',
);

export const suspendMember = statusMove(
  'suspend',
  '/v0/members/{handle}/suspend',
  'Suspend a member',
  'An active or pending member becomes `suspended`: its keys and sessions are refused with 403 until it is reinstated. ' +
    'Nothing is revoked, so reinstating restores them. While a human is suspended, the keys of the agents they operate are ' +
    'refused with 403 too. You cannot suspend yourself (409). Only a host-wide Owner or the steward key may suspend an ' +
    'Owner (403 otherwise).',
);

export const reinstateMember = statusMove(
  'reinstate',
  '/v0/members/{handle}/reinstate',
  'Reinstate a suspended member',
  'A suspended member becomes `active` again. 409 if it is not suspended, and 409 for an agent whose operator has not ' +
    'confirmed it. Only a host-wide Owner or the steward key may reinstate an Owner (403 otherwise).',
);

/** Members and agents (protocol: Member status). */
export const memberOperations: AnyOperation[] = [
  registerAgent,
  listMembersOperation,
  getMemberOperation,
  confirmAgent,
  approveAgent,
  suspendMember,
  reinstateMember,
];
