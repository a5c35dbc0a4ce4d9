import { Type } from '@sinclair/typebox';
import { MEMBER_CREDENTIALS, defineOperation } from '../operations/operation.js';
import * as endpoints from './endpoints.js';
import { CreateEndpointBody, EndpointParams } from './schemas.js';

const EndpointRef = Type.Ref('WebhookEndpoint');
const OWNER_RULE =
  'An active member (humans and agents alike, with their session or member key) manages their own endpoints; ' +
  "anyone else's, a deleted one or an unknown id is 404.";

export const listWebhookSigningKeys = defineOperation({
  name: 'list_webhook_signing_keys',
  method: 'GET',
  path: '/v0/webhook-signing-keys',
  tag: 'Webhooks',
  summary: 'The public keys that sign webhook requests',
  description:
    'A JWK Set of Ed25519 keys. Every webhook request names its key in `Webhook-Key-Id`; a receiver verifies ' +
    '`Webhook-Signature` over `<Webhook-Key-Id>.<Webhook-Timestamp>.<raw body>` with that key. ' +
    'After a rotation the previous key stays listed as `retiring` for at least 7 days.',
  auth: { anonymous: true, schemes: [] },
  success: { status: 200, description: 'The active key and any retiring ones.', schema: Type.Ref('WebhookSigningKeySet') },
  errors: [],
  readOnly: true,
  notAnMcpTool: 'for webhook receivers verifying signatures, which are HTTP servers rather than agents',
  handler: async ({ ctx }) => ({ keys: await ctx.webhookKeys.published() }),
});

export const createWebhookEndpoint = defineOperation({
  name: 'create_webhook_endpoint',
  method: 'POST',
  path: '/v0/webhook-endpoints',
  tag: 'Webhooks',
  summary: 'Register a webhook receiver URL',
  description:
    `${OWNER_RULE} The URL must be absolute, https, without user name or password, and its host must resolve only to public ` +
    'addresses (http and private addresses only inside the host\'s ATRIUM_EGRESS_ALLOW_CIDRS); otherwise 422 naming why, ' +
    `and nothing is stored. The endpoint starts \`unverified\`: verify it before anything is sent. At most ${endpoints.MAX_ENDPOINTS} ` +
    'endpoints per member (deleted ones do not count): 409 beyond.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  body: CreateEndpointBody,
  bodyRequired: true,
  success: { status: 201, description: 'The endpoint, `unverified`.', schema: EndpointRef },
  errors: [401, 403, 409],
  handler: async ({ body, actor, ctx }) => endpoints.registerEndpoint(ctx, actor, body.url),
});

export const listWebhookEndpoints = defineOperation({
  name: 'list_webhook_endpoints',
  method: 'GET',
  path: '/v0/webhook-endpoints',
  tag: 'Webhooks',
  summary: 'List your webhook endpoints',
  description: `${OWNER_RULE} Oldest first.`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  success: {
    status: 200,
    description: "The caller's endpoints.",
    schema: Type.Object({ endpoints: Type.Array(EndpointRef) }, { additionalProperties: false }),
  },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ actor, ctx }) => ({ endpoints: await endpoints.listEndpoints(ctx.db.kysely, actor) }),
});

export const getWebhookEndpoint = defineOperation({
  name: 'get_webhook_endpoint',
  method: 'GET',
  path: '/v0/webhook-endpoints/{id}',
  tag: 'Webhooks',
  summary: 'Read one of your webhook endpoints',
  description: OWNER_RULE,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: EndpointParams,
  success: { status: 200, description: 'The endpoint.', schema: EndpointRef },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => endpoints.getEndpoint(ctx.db.kysely, actor, params.id),
});

export const deleteWebhookEndpoint = defineOperation({
  name: 'delete_webhook_endpoint',
  method: 'DELETE',
  path: '/v0/webhook-endpoints/{id}',
  tag: 'Webhooks',
  summary: 'Delete one of your webhook endpoints',
  description: `${OWNER_RULE} Its subscriptions go with it; a second delete is 404.`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: EndpointParams,
  success: { status: 204, description: 'Deleted.' },
  errors: [401, 403, 404],
  destructive: true,
  handler: async ({ params, actor, ctx }) => endpoints.deleteEndpoint(ctx, actor, params.id),
});

export const verifyWebhookEndpoint = defineOperation({
  name: 'verify_webhook_endpoint',
  method: 'POST',
  path: '/v0/webhook-endpoints/{id}/verify',
  tag: 'Webhooks',
  summary: 'Verify a webhook endpoint by a signed challenge',
  description:
    `${OWNER_RULE} Sends a signed POST with the envelope \`{id, type: "atrium.webhook.challenge", issuer, challenge, created_ts, spec_version}\`; ` +
    'the receiver must answer 2xx with the JSON `{"challenge": <the same value>}`. Then 200 with the endpoint `active` and `verified_ts` set. ' +
    'Otherwise (refused address, no answer in time, another status, a redirect, a missing or wrong echo) 422 naming why, and nothing changes. ' +
    'Any status may be verified again.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: EndpointParams,
  success: { status: 200, description: 'The endpoint, `active`.', schema: EndpointRef },
  errors: [401, 403, 404],
  idempotent: true,
  openWorld: true,
  handler: async ({ params, actor, ctx }) => endpoints.verifyEndpoint(ctx, actor, params.id),
});

export const webhookOperations = [
  listWebhookSigningKeys,
  createWebhookEndpoint,
  listWebhookEndpoints,
  getWebhookEndpoint,
  deleteWebhookEndpoint,
  verifyWebhookEndpoint,
];
