import { Type } from '@sinclair/typebox';
import { defineOperation, type AnyOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { idPattern } from '../shared/ids.js';
import { Handle } from '../shared/schemas.js';
import { approveAuthorizationRequest, denyAuthorizationRequest, viewAuthorizationRequest } from './authorization.js';
import { listGrants, revokeOwnGrant } from './grants.js';
import { AuthorizationRequestSchema, GrantSchema, Scope, Spaces } from './schemas.js';

const TAG: Tag = 'OAuth';
const SESSION_ONLY = { anonymous: false, schemes: ['session' as const] };
const CONSENT_IN_BROWSER = 'consent is given by a person in the browser: an agent told to approve would grant itself access';
const CREDENTIALS_PAGE = 'grants are managed by their human on the credentials page, with a signed-in session';

const RequestParams = Type.Object(
  { id: Type.String({ pattern: idPattern('authz'), description: 'The authorization request id (the consent page URL names it).' }) },
  { additionalProperties: false },
);

const RedirectSchema = Type.Object(
  { redirect_to: Type.String({ description: "Send the browser here: the client's redirect URI with the outcome, `state` and `iss`." }) },
  { additionalProperties: false },
);

export const getAuthorizationRequest = defineOperation({
  name: 'get_oauth_authorization_request',
  who: 'humans',
  method: 'GET',
  path: '/v0/oauth-authorization-requests/{id}',
  tag: TAG,
  summary: 'Read a pending OAuth authorization request',
  description:
    'For the consent page: who is asking (the client\'s own, unverified name and its `client_id` host), where the browser returns, ' +
    'the scope and resource asked for, and whom the client may act as. A signed-in human only; 409 once decided, 410 once expired.',
  auth: SESSION_ONLY,
  params: RequestParams,
  success: { status: 200, description: 'The pending request.', schema: AuthorizationRequestSchema },
  errors: [401, 403, 404, 409, 410],
  readOnly: true,
  notAnMcpTool: CONSENT_IN_BROWSER,
  handler: async ({ params, actor, ctx }) => viewAuthorizationRequest(ctx.db.kysely, actor, params.id, ctx.clock.now()),
});

export const approveAuthorizationRequestOperation = defineOperation({
  name: 'approve_oauth_authorization_request',
  who: 'humans',
  method: 'POST',
  path: '/v0/oauth-authorization-requests/{id}/approve',
  tag: TAG,
  summary: 'Consent to an OAuth client',
  description:
    'Creates the grant: the client will act as `acting_member` (you, or one of your own active, confirmed agents: then with the agent\'s ' +
    'authority, never yours), with `scope` no wider than asked, in `spaces` (null: every Space). Answers where to send the browser, ' +
    'with the code the client exchanges for tokens. An agent that is pending or unconfirmed is 403.',
  auth: SESSION_ONLY,
  params: RequestParams,
  body: Type.Object({ acting_member: Handle, scope: Scope, spaces: Spaces }, { additionalProperties: false }),
  bodyRequired: true,
  success: { status: 200, description: 'Where to send the browser.', schema: RedirectSchema },
  errors: [401, 403, 404, 409, 410],
  notAnMcpTool: CONSENT_IN_BROWSER,
  handler: async ({ params, body, actor, ctx }) =>
    ctx.db.transaction((tx) => approveAuthorizationRequest(tx, actor, params.id, body, ctx.config.baseUrl)),
});

export const denyAuthorizationRequestOperation = defineOperation({
  name: 'deny_oauth_authorization_request',
  who: 'humans',
  method: 'POST',
  path: '/v0/oauth-authorization-requests/{id}/deny',
  tag: TAG,
  summary: 'Decline an OAuth client',
  description: 'Nothing is granted; the browser goes back to the client with `error=access_denied`.',
  auth: SESSION_ONLY,
  params: RequestParams,
  body: Type.Object({}, { additionalProperties: false }),
  success: { status: 200, description: 'Where to send the browser.', schema: RedirectSchema },
  errors: [401, 403, 404, 409, 410],
  notAnMcpTool: CONSENT_IN_BROWSER,
  handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => denyAuthorizationRequest(tx, actor, params.id, ctx.config.baseUrl)),
});

export const listGrantsOperation = defineOperation({
  name: 'list_oauth_grants',
  who: 'humans',
  method: 'GET',
  path: '/v0/oauth-grants',
  tag: TAG,
  summary: 'List your OAuth grants',
  description: 'The grants you consented to, newest first, revoked ones included. Needs a signed-in session.',
  auth: SESSION_ONLY,
  success: {
    status: 200,
    description: 'Your grants (never their tokens).',
    schema: Type.Object({ grants: Type.Array(GrantSchema) }, { additionalProperties: false }),
  },
  errors: [401, 403],
  readOnly: true,
  notAnMcpTool: CREDENTIALS_PAGE,
  handler: async ({ actor, ctx }) => ({ grants: await listGrants(ctx.db.kysely, actor) }),
});

export const revokeGrantOperation = defineOperation({
  name: 'revoke_oauth_grant',
  who: 'humans',
  method: 'POST',
  path: '/v0/oauth-grants/{id}/revoke',
  tag: TAG,
  summary: 'Revoke an OAuth grant',
  description: "The grant's tokens stop at once, on every node. Revoking again answers the same record. Needs a signed-in session.",
  auth: SESSION_ONLY,
  params: Type.Object({ id: Type.String({ pattern: idPattern('grant'), description: 'The grant id.' }) }, { additionalProperties: false }),
  body: Type.Object({}, { additionalProperties: false }),
  success: { status: 200, description: 'The grant, revoked.', schema: GrantSchema },
  errors: [401, 403, 404],
  destructive: true,
  idempotent: true,
  notAnMcpTool: CREDENTIALS_PAGE,
  handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => revokeOwnGrant(tx, actor, params.id)),
});

export const oauthOperations: AnyOperation[] = [
  getAuthorizationRequest,
  approveAuthorizationRequestOperation,
  denyAuthorizationRequestOperation,
  listGrantsOperation,
  revokeGrantOperation,
];
