import { Type } from '@sinclair/typebox';
import { MEMBER_CREDENTIALS, defineOperation } from '../operations/operation.js';
import { getSpace } from '../spaces/service.js';
import { SpaceParams } from '../spaces/schemas.js';
import * as deliveries from './deliveries.js';
import * as endpoints from './endpoints.js';
import * as subscriptions from './subscriptions.js';
import {
  CreateEndpointBody,
  CreateInboxSubscriptionBody,
  CreateSpaceSubscriptionBody,
  DeliveryParams,
  EndpointParams,
  MAX_DEBOUNCE_MS,
  PatchInboxSubscriptionBody,
  PatchSpaceSubscriptionBody,
  SpaceSubscriptionParams,
  SubscriptionParams,
} from './schemas.js';

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

const SubscriptionRef = Type.Ref('WebhookSubscription');
const SubscriptionList = Type.Object({ subscriptions: Type.Array(SubscriptionRef) }, { additionalProperties: false });
const SUBSCRIPTION_OWNER_RULE =
  'An active member (human or agent) manages their own subscriptions; anyone else\'s, a deleted one or an unknown id is 404.';
const CREATE_RULES =
  '`endpoint_id` must be one of your endpoints, any status (else 422). ' +
  `\`debounce_ms\` is 0-${MAX_DEBOUNCE_MS}, default 1000: after the first qualifying event, a wake waits that long to gather more. ` +
  'The subscription starts `inactive` at version 1 and sends nothing until activated. ' +
  `Quotas per member (deleted ones do not count): ${subscriptions.MAX_SUBSCRIPTIONS} subscriptions, ${subscriptions.MAX_SUBSCRIPTIONS_PER_SPACE} per Space, ` +
  `${subscriptions.MAX_INBOX_SUBSCRIPTIONS} inbox subscriptions: 409 beyond.`;
const ACTIVATE_RULES =
  'Only events numbered after `activation_cursor` (the host\'s newest cursor now; 0 if none) qualify. ' +
  '409 if it was activated before, or if its endpoint is not `active` (verify it first).';
const PATCH_RULES =
  'Changes only the fields given; a real change raises `version` by 1. `status` `paused` stops wakes; `active` resumes them and sends at once one ' +
  'catch-up wake for what qualified while paused. `status` before activation is 409.';
const DELETE_RULES = 'Unsent deliveries are cancelled; a second delete is 404.';

/** The Space collection: `/v0/spaces/{slug}/webhook-subscriptions`. */
const SPACE_COLLECTION = '/v0/spaces/{slug}/webhook-subscriptions';
const spaceCollection = (slug: string): subscriptions.Collection => ({ scope: 'space_events', space: slug });

export const createSpaceWebhookSubscription = defineOperation({
  name: 'create_space_webhook_subscription',
  method: 'POST',
  path: SPACE_COLLECTION,
  tag: 'Webhooks',
  summary: "Subscribe an endpoint to a Space's events",
  description:
    'Wakes say "events in this range may concern you; read the feed". Follows the Space action gate: any active member in an open Space ' +
    '(unless removed), admission in request and invite Spaces (else 403). Without a `filter`, every event of the Space that the owner may read ' +
    `qualifies; with one, events matching any of its clauses. ${CREATE_RULES}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  body: CreateSpaceSubscriptionBody,
  bodyRequired: true,
  success: { status: 201, description: 'The subscription, `inactive`.', schema: SubscriptionRef },
  errors: [401, 403, 404, 409],
  handler: async ({ params, body, actor, ctx }) =>
    ctx.db.transaction((tx) => subscriptions.createSubscription(tx, actor, spaceCollection(params.slug), body as subscriptions.NewSubscription)),
});

export const listSpaceWebhookSubscriptions = defineOperation({
  name: 'list_space_webhook_subscriptions',
  method: 'GET',
  path: SPACE_COLLECTION,
  tag: 'Webhooks',
  summary: 'List your subscriptions to a Space',
  description: `${SUBSCRIPTION_OWNER_RULE} Oldest first.`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  success: { status: 200, description: "The caller's subscriptions to this Space.", schema: SubscriptionList },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => {
    await getSpace(ctx.db.kysely, params.slug);
    return { subscriptions: await subscriptions.listSubscriptions(ctx.db.kysely, actor, spaceCollection(params.slug)) };
  },
});

export const getSpaceWebhookSubscription = defineOperation({
  name: 'get_space_webhook_subscription',
  method: 'GET',
  path: `${SPACE_COLLECTION}/{id}`,
  tag: 'Webhooks',
  summary: 'Read one of your subscriptions to a Space',
  description: SUBSCRIPTION_OWNER_RULE,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceSubscriptionParams,
  success: { status: 200, description: 'The subscription.', schema: SubscriptionRef },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => subscriptions.getSubscription(ctx.db.kysely, actor, spaceCollection(params.slug), params.id),
});

export const updateSpaceWebhookSubscription = defineOperation({
  name: 'update_space_webhook_subscription',
  method: 'PATCH',
  path: `${SPACE_COLLECTION}/{id}`,
  tag: 'Webhooks',
  summary: 'Pause, resume, or change the debounce or filter of a Space subscription',
  description: `${SUBSCRIPTION_OWNER_RULE} ${PATCH_RULES} \`filter\` replaces the filter; null clears it.`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceSubscriptionParams,
  body: PatchSpaceSubscriptionBody,
  bodyRequired: true,
  success: { status: 200, description: 'The subscription as it is now.', schema: SubscriptionRef },
  errors: [401, 403, 404, 409],
  idempotent: true,
  handler: async ({ params, body, actor, ctx }) => {
    const updated = await ctx.db.transaction((tx) => subscriptions.updateSubscription(tx, actor, spaceCollection(params.slug), params.id, body as subscriptions.SubscriptionChange));
    if (body.status === 'active') ctx.webhooks.kick();
    return updated;
  },
});

export const deleteSpaceWebhookSubscription = defineOperation({
  name: 'delete_space_webhook_subscription',
  method: 'DELETE',
  path: `${SPACE_COLLECTION}/{id}`,
  tag: 'Webhooks',
  summary: 'Delete one of your subscriptions to a Space',
  description: `${SUBSCRIPTION_OWNER_RULE} ${DELETE_RULES}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceSubscriptionParams,
  success: { status: 204, description: 'Deleted.' },
  errors: [401, 403, 404],
  destructive: true,
  handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => subscriptions.deleteSubscription(tx, actor, spaceCollection(params.slug), params.id)),
});

export const activateSpaceWebhookSubscription = defineOperation({
  name: 'activate_space_webhook_subscription',
  method: 'POST',
  path: `${SPACE_COLLECTION}/{id}/activate`,
  tag: 'Webhooks',
  summary: 'Activate a Space subscription',
  description: `${SUBSCRIPTION_OWNER_RULE} ${ACTIVATE_RULES}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceSubscriptionParams,
  success: { status: 200, description: 'The subscription, `active`.', schema: SubscriptionRef },
  errors: [401, 403, 404, 409],
  handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => subscriptions.activateSubscription(tx, actor, spaceCollection(params.slug), params.id)),
});

/** The inbox collection: `/v0/me/inbox-subscriptions`; the recipient is always the caller. */
const INBOX_COLLECTION = '/v0/me/inbox-subscriptions';
const INBOX: subscriptions.Collection = { scope: 'inbox_events' };
const INBOX_RULE =
  "Wakes for the caller's own inbox feed (mentions and direct messages, in Spaces the caller can read); an operator never receives its agents' inbox.";

export const createInboxSubscription = defineOperation({
  name: 'create_inbox_subscription',
  method: 'POST',
  path: INBOX_COLLECTION,
  tag: 'Webhooks',
  summary: 'Subscribe an endpoint to your inbox',
  description: `${INBOX_RULE} ${CREATE_RULES}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  body: CreateInboxSubscriptionBody,
  bodyRequired: true,
  success: { status: 201, description: 'The subscription, `inactive`.', schema: SubscriptionRef },
  errors: [401, 403, 409],
  handler: async ({ body, actor, ctx }) => ctx.db.transaction((tx) => subscriptions.createSubscription(tx, actor, INBOX, body)),
});

export const listInboxSubscriptions = defineOperation({
  name: 'list_inbox_subscriptions',
  method: 'GET',
  path: INBOX_COLLECTION,
  tag: 'Webhooks',
  summary: 'List your inbox subscriptions',
  description: `${SUBSCRIPTION_OWNER_RULE} Oldest first.`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  success: { status: 200, description: "The caller's inbox subscriptions.", schema: SubscriptionList },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ actor, ctx }) => ({ subscriptions: await subscriptions.listSubscriptions(ctx.db.kysely, actor, INBOX) }),
});

export const getInboxSubscription = defineOperation({
  name: 'get_inbox_subscription',
  method: 'GET',
  path: `${INBOX_COLLECTION}/{id}`,
  tag: 'Webhooks',
  summary: 'Read one of your inbox subscriptions',
  description: SUBSCRIPTION_OWNER_RULE,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SubscriptionParams,
  success: { status: 200, description: 'The subscription.', schema: SubscriptionRef },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => subscriptions.getSubscription(ctx.db.kysely, actor, INBOX, params.id),
});

export const updateInboxSubscription = defineOperation({
  name: 'update_inbox_subscription',
  method: 'PATCH',
  path: `${INBOX_COLLECTION}/{id}`,
  tag: 'Webhooks',
  summary: 'Pause, resume, or change the debounce of an inbox subscription',
  description: `${SUBSCRIPTION_OWNER_RULE} ${PATCH_RULES}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SubscriptionParams,
  body: PatchInboxSubscriptionBody,
  bodyRequired: true,
  success: { status: 200, description: 'The subscription as it is now.', schema: SubscriptionRef },
  errors: [401, 403, 404, 409],
  idempotent: true,
  handler: async ({ params, body, actor, ctx }) => {
    const updated = await ctx.db.transaction((tx) => subscriptions.updateSubscription(tx, actor, INBOX, params.id, body));
    if (body.status === 'active') ctx.webhooks.kick();
    return updated;
  },
});

export const deleteInboxSubscription = defineOperation({
  name: 'delete_inbox_subscription',
  method: 'DELETE',
  path: `${INBOX_COLLECTION}/{id}`,
  tag: 'Webhooks',
  summary: 'Delete one of your inbox subscriptions',
  description: `${SUBSCRIPTION_OWNER_RULE} ${DELETE_RULES}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SubscriptionParams,
  success: { status: 204, description: 'Deleted.' },
  errors: [401, 403, 404],
  destructive: true,
  handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => subscriptions.deleteSubscription(tx, actor, INBOX, params.id)),
});

export const activateInboxSubscription = defineOperation({
  name: 'activate_inbox_subscription',
  method: 'POST',
  path: `${INBOX_COLLECTION}/{id}/activate`,
  tag: 'Webhooks',
  summary: 'Activate an inbox subscription',
  description: `${SUBSCRIPTION_OWNER_RULE} ${ACTIVATE_RULES}`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SubscriptionParams,
  success: { status: 200, description: 'The subscription, `active`.', schema: SubscriptionRef },
  errors: [401, 403, 404, 409],
  handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => subscriptions.activateSubscription(tx, actor, INBOX, params.id)),
});

export const listWebhookDeliveries = defineOperation({
  name: 'list_webhook_deliveries',
  method: 'GET',
  path: '/v0/webhook-subscriptions/{id}/deliveries',
  tag: 'Webhooks',
  summary: "A subscription's delivery history",
  description:
    `${SUBSCRIPTION_OWNER_RULE} Either scope. The newest ${deliveries.DELIVERY_HISTORY_LIMIT} deliveries, newest first, each with its attempts. ` +
    'These are transport attempts (what the receiver answered), not a receipt that anything was processed.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SubscriptionParams,
  success: {
    status: 200,
    description: 'Deliveries, newest first.',
    schema: Type.Object({ deliveries: Type.Array(Type.Ref('WebhookDelivery')) }, { additionalProperties: false }),
  },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => ({ deliveries: await deliveries.listDeliveries(ctx.db.kysely, actor, params.id) }),
});

export const replayWebhookDelivery = defineOperation({
  name: 'replay_webhook_delivery',
  method: 'POST',
  path: '/v0/webhook-deliveries/{id}/replay',
  tag: 'Webhooks',
  summary: 'Send a dead delivery again',
  description:
    'The owner of its subscription sends a `dead` delivery again at once, with the same id and body; if it fails, it is retried on the schedule. ' +
    '409 if it is not `dead` or its endpoint is not `active`. Unknown, deleted or anyone else\'s: 404.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: DeliveryParams,
  success: { status: 202, description: 'The delivery, `pending` again.', schema: Type.Ref('WebhookDelivery') },
  errors: [401, 403, 404, 409],
  openWorld: true,
  handler: async ({ params, actor, ctx }) => {
    const replayed = await ctx.db.transaction((tx) => deliveries.replayDelivery(tx, actor, params.id));
    ctx.webhooks.kick();
    return replayed;
  },
});

export const webhookOperations = [
  listWebhookSigningKeys,
  createWebhookEndpoint,
  listWebhookEndpoints,
  getWebhookEndpoint,
  deleteWebhookEndpoint,
  verifyWebhookEndpoint,
  createSpaceWebhookSubscription,
  listSpaceWebhookSubscriptions,
  getSpaceWebhookSubscription,
  updateSpaceWebhookSubscription,
  deleteSpaceWebhookSubscription,
  activateSpaceWebhookSubscription,
  createInboxSubscription,
  listInboxSubscriptions,
  getInboxSubscription,
  updateInboxSubscription,
  deleteInboxSubscription,
  activateInboxSubscription,
  listWebhookDeliveries,
  replayWebhookDelivery,
];
