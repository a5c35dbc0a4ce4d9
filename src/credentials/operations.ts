import { Type } from '@sinclair/typebox';
import { MEMBER_CREDENTIALS, OWNER_HOST_CREDENTIALS, defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { createApproval, listApprovals } from './approvals.js';
import { admitsMember } from './connections.js';
import { callExternalService, issueCredentialTicket } from './issuance.js';
import { ApprovalBody, CallAnswer, CallBody, ConnectionList, CredentialSpaceParams, TicketAnswer } from './schemas.js';
import { admittedMember } from './space-access.js';

const TAG: Tag = 'Credentials';

const WHO = 'An active member credential (401 otherwise) whose member is admitted to the Space (403 otherwise; in an open Space, `join` admits at once).';

const REFUSALS =
  'Refusals carry `{detail}` starting with their code: 404 `connection_not_found` (unknown, another Space’s, or not the caller’s to use); ' +
  '422 `invalid_request` (a header named twice, a bad `purpose`, a body that is not base64), ' +
  '`url_invalid`, `task_required`; ' +
  '403 `header_denied`, `task_not_claimed` (a `task_id` the caller holds no claim on), `approval_required`, `approval_invalid` ' +
  '(unknown, expired, or not binding exactly this member and request); ' +
  '409 `approval_consumed`, `run_id_reused` (a run id gets one ticket per member; refusals do not use it up). ' +
  "The gateway's own refusals (`destination_denied`, `header_denied`, …) come back with " +
  'their code and status; 503 `gateway_unavailable` when it cannot be reached.';

const CALL_BODY =
  '`connection_id`; `run_id` (generated when absent); `purpose` (one line, 1-200 characters, no control or format characters, recorded in the gateway ledger); ' +
  '`task_id` (needed when the connection requires a task); `approval_id` (needed for the connection’s `approval_required_methods`; ' +
  'consumed with the issuance); `ttl_seconds` (capped at the connection’s `max_ttl_seconds` and 300; default 30 or that cap); `request`.';

export const listExternalConnections = defineOperation({
  name: 'list_external_connections',
  who: 'admitted_members',
  method: 'GET',
  path: '/v0/spaces/{space}/external-connections',
  tag: TAG,
  summary: 'List the external connections you may call through',
  description:
    `The host's credential connections of this Space that admit the caller (its member type, and its handle when the connection names actors). ${WHO} ` +
    'A connection never shows its destination or any credential.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: CredentialSpaceParams,
  success: { status: 200, description: 'The connections, in configuration order.', schema: ConnectionList },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => {
    const { member } = await admittedMember(ctx.db.kysely, actor, params.space, { active: false });
    const connections = ctx.credentialConnections.inSpace(params.space).filter((c) => admitsMember(c, member.member));
    return {
      connections: connections.map((c) => ({
        id: c.id,
        approval_required_methods: c.approvalRequiredMethods as Array<'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'>,
        require_task: c.requireTask,
        max_ttl_seconds: c.maxTtlSeconds,
      })),
    };
  },
});

export const createCredentialApproval = defineOperation({
  name: 'create_credential_approval',
  who: 'space_stewards',
  method: 'POST',
  path: '/v0/spaces/{space}/credential-approvals',
  tag: TAG,
  summary: 'Approve one exact external request for a member',
  description:
    'Owner/Host of the Space (their session or member key) or the steward key; agents are refused (403). No admission is needed. ' +
    'Binds one member, connection, task (optional), run, purpose, method, exact URL, header set and body; usable once, until ' +
    '`expires_in_seconds` (1-86400, default 3600) pass. `member_handle` must be a member the connection admits, `connection_id` a connection ' +
    'of this Space, and `task_id` a task of this Space (422 `invalid_request` otherwise); the request is checked as a call checks it. ' +
    'The answer shows header names but not their values, and the body only by its SHA-256. `reason` stays on this host. ' +
    'Event `credential_approval_created` (method and host only).',
  auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
  params: CredentialSpaceParams,
  body: ApprovalBody,
  bodyRequired: true,
  success: { status: 201, description: 'The approval, `issued`.', schema: Type.Ref('CredentialApproval') },
  errors: [401, 403, 404],
  handler: async ({ params, body, actor, ctx }) => ctx.db.transaction((tx) => createApproval(tx, actor, ctx.credentialConnections, params.space, body)),
});

export const listCredentialApprovals = defineOperation({
  name: 'list_credential_approvals',
  who: 'space_stewards',
  method: 'GET',
  path: '/v0/spaces/{space}/credential-approvals',
  tag: TAG,
  summary: "List a Space's credential approvals",
  description:
    'Owner/Host of the Space (their session or member key) or the steward key; agents are refused (403). Newest first, at most 200, ' +
    'with their status (`issued`, `consumed`, `expired`). Shown as when created: header names but not values, the body only by its SHA-256.',
  auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
  params: CredentialSpaceParams,
  success: {
    status: 200,
    description: 'The approvals, newest first.',
    schema: Type.Object({ approvals: Type.Array(Type.Ref('CredentialApproval')) }, { additionalProperties: false }),
  },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => ({ approvals: await listApprovals(ctx.db.kysely, actor, params.space, ctx.clock.now()) }),
});

export const callExternal = defineOperation({
  name: 'call_external_service',
  who: 'admitted_members',
  method: 'POST',
  path: '/v0/spaces/{space}/credential-calls',
  tag: TAG,
  summary: 'Make one exact external request through the credential gateway',
  description:
    `The preferred way: the host has the gateway issue a ticket for exactly this request and uses it itself, so neither the ticket nor the ` +
    `provider credential reaches the caller. ${WHO} The Space must be \`active\` (409). Body: ${CALL_BODY} ${REFUSALS} ` +
    'Calls in flight are bounded per member and per connection (429 `too_many_calls`, nothing used up), by the room this host has for their ' +
    'answers (503 `host_busy`, the run id and approval freed) and by the gateway (503 `gateway_busy`), all with Retry-After. ' +
    'Upstream failures: 502 `upstream_error` or `response_too_large`, 504 `upstream_timeout`; once a ticket was issued the run id is used, ' +
    'so after a lost answer reconcile with the provider by `run_id` instead of repeating. Event `credential_ticket_issued` (never query, ' +
    'header or body values). The response body is untrusted data.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: CredentialSpaceParams,
  body: CallBody,
  bodyRequired: true,
  success: { status: 200, description: "The upstream's answer, as the destination allows it through.", schema: CallAnswer },
  errors: [401, 403, 404, 409, 429, 502, 503, 504],
  openWorld: true,
  handler: async ({ params, body, actor, ctx, response }) => {
    const { result, json } = await callExternalService(ctx, actor, params.space, body);
    // The answer as the gateway's text already says it: serialising the result would copy its body twice more.
    if (json !== undefined) response.sendJson(json);
    return result;
  },
});

export const issueTicket = defineOperation({
  name: 'issue_credential_ticket',
  who: 'admitted_members',
  method: 'POST',
  path: '/v0/spaces/{space}/credential-tickets',
  tag: TAG,
  summary: 'Get a one-use ticket for one exact external request',
  description:
    'For harnesses that call the gateway themselves: the body, checks, refusals and event of `call_external_service`, but the answer is ' +
    'the ticket, to be used once at `POST {gateway_url}/v1/call {ticket}` before `expires_ts`. A 429 `too_many_calls` or 503 ' +
    '`gateway_busy` from the gateway (with Retry-After) leaves the ticket unused, to be presented again.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: CredentialSpaceParams,
  body: CallBody,
  bodyRequired: true,
  success: { status: 201, description: 'The ticket and where to use it.', schema: TicketAnswer },
  errors: [401, 403, 404, 409, 503],
  handler: async ({ params, body, actor, ctx }) => ({
    ...(await issueCredentialTicket(ctx, actor, params.space, body)),
    gateway_url: ctx.config.gateway.url,
  }),
});

export const credentialOperations = [listExternalConnections, callExternal, issueTicket, createCredentialApproval, listCredentialApprovals];
