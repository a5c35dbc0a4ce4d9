import { Type } from '@sinclair/typebox';
import { defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { consumeRateLimit } from '../shared/rate-limit.js';
import { ActivationSummarySchema, CreatedActivationSchema, PollResultSchema } from './schemas.js';
import * as activations from './service.js';

const TAG: Tag = 'Client activation';

// Loose on purpose: a mistyped or mistaken code (a sign-in code, say) gets the 404 that says which code goes where.
const CodeParams = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$', description: 'The activation code, `XXXX-XXXX`; case and dashes do not matter.' }) },
  { additionalProperties: false },
);

export const activationSchemas = [ActivationSummarySchema];

export const createActivation = defineOperation({
  name: 'create_client_activation',
  who: 'anyone',
  method: 'POST',
  path: '/v0/client-activations',
  tag: TAG,
  summary: 'Start a browser-mediated client activation',
  description:
    'A CLI or agent harness asks for an API key: show the human `activation_url` and `code`, then poll `poll_url` ' +
    'with `poll_secret` every `poll_interval_seconds` (ATRIUM_ACTIVATION_POLL_SECONDS, default 5). Expires after 15 minutes. Creation is limited per client ' +
    'address (ATRIUM_ACTIVATION_RATE_LIMIT per 15 minutes, default 20): beyond it 429 with Retry-After.',
  auth: { anonymous: true, schemes: [] },
  body: Type.Object(
    { client_name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) },
    { additionalProperties: false },
  ),
  success: { status: 201, description: 'The activation, with its one-time poll secret.', schema: CreatedActivationSchema },
  errors: [429],
  notAnMcpTool: 'client activation is how a client without a credential obtains one; MCP needs one already',
  handler: async ({ body, ctx, clientAddress }) =>
    ctx.db.transaction((tx) =>
      activations.createActivation(tx, {
        ...(body.client_name !== undefined ? { client_name: body.client_name } : {}),
        clientDigest: ctx.addressDigest(clientAddress),
        rateLimit: ctx.config.activationRateLimit,
        baseUrl: ctx.config.baseUrl,
        pollIntervalSeconds: ctx.config.activationPollSeconds,
      }),
    ),
});

export const getActivation = defineOperation({
  name: 'get_client_activation',
  who: 'anyone',
  method: 'GET',
  path: '/v0/client-activations/{code}',
  tag: TAG,
  summary: 'Read a client activation (what the approval page shows)',
  description:
    'Public: the code is the capability. Shows the client name, status and expiry so a person can check the code before approving; ' +
    'never the poll secret or the key. Codes are case-insensitive and dashes do not matter.',
  auth: { anonymous: true, schemes: [] },
  params: CodeParams,
  success: { status: 200, description: 'The activation.', schema: Type.Ref('ClientActivation') },
  errors: [404],
  readOnly: true,
  notAnMcpTool: 'client activation is how a client without a credential obtains one; MCP needs one already',
  handler: async ({ params, ctx }) => activations.getActivation(ctx.db.kysely, params.code, ctx.clock.now(), ctx.config.baseUrl),
});

export const approveActivation = defineOperation({
  name: 'approve_client_activation',
  who: 'humans',
  createsCredential: true,
  method: 'POST',
  path: '/v0/client-activations/{code}/approve',
  tag: TAG,
  summary: 'Approve a client activation',
  description:
    'An active human approves; a separately revocable API credential is minted for them and delivered once ' +
    'through the poll. Never deliver the browser session itself.',
  auth: { anonymous: false, schemes: ['member_key', 'session'] },
  params: CodeParams,
  body: Type.Object({}, { additionalProperties: false }),
  success: { status: 200, description: 'The activation, now approved.', schema: Type.Ref('ClientActivation') },
  errors: [401, 403, 404, 409, 410],
  notAnMcpTool: 'approval is browser-mediated by design: an agent told to approve a code would mint a key for whoever holds it',
  handler: async ({ params, actor, ctx }) =>
    ctx.db.transaction((tx) => activations.approveActivation(tx, actor, params.code, ctx.config.baseUrl)),
});

export const pollActivation = defineOperation({
  name: 'poll_client_activation',
  who: 'anyone',
  method: 'POST',
  path: '/v0/client-activations/{code}/poll',
  tag: TAG,
  summary: 'Poll a client activation with its secret',
  description:
    '`member` and `key` appear exactly once, on the first poll after approval; later polls are 409. ' +
    'Wait `retry_after_seconds` between polls: a poll sooner than that raises this activation\'s interval by 5 seconds for good ' +
    '(the device flow\'s `slow_down`, RFC 8628), and the answer says the new one. Polls are also limited per client address ' +
    '(ATRIUM_ACTIVATION_POLL_RATE_LIMIT per minute, default 120): beyond it 429 with Retry-After.',
  auth: { anonymous: true, schemes: [] },
  params: CodeParams,
  body: Type.Object({ poll_secret: Type.String({ minLength: 32, maxLength: 256 }) }, { additionalProperties: false }),
  bodyRequired: true,
  success: {
    status: 200,
    description: 'The activation status; with the member and key once after approval.',
    schema: PollResultSchema,
  },
  errors: [401, 404, 409, 429],
  notAnMcpTool: 'client activation is how a client without a credential obtains one; MCP needs one already',
  handler: async ({ params, body, ctx, clientAddress }) => {
    // Counted in a transaction of its own: a poll with a wrong secret or code must count too.
    await ctx.db.transaction((tx) =>
      consumeRateLimit(tx, {
        bucket: 'activation_poll',
        keyDigest: ctx.addressDigest(clientAddress),
        limit: ctx.config.activationPollRateLimit,
        windowMs: 60 * 1000,
        detail: 'too many activation polls from this address; wait retry_after_seconds between polls',
      }),
    );
    return ctx.db.transaction((tx) =>
      activations.pollActivation(tx, params.code, body.poll_secret, ctx.config.baseUrl, ctx.config.activationPollSeconds),
    );
  },
});

export const activationOperations = [createActivation, getActivation, approveActivation, pollActivation];
