import { Type, type TSchema } from '@sinclair/typebox';
import type { AppContext } from '../app-context.js';
import { MEMBER_CREDENTIALS, defineOperation, type Audience, type BeyondSpaces, type ErrorStatus } from '../operations/operation.js';
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
import { EXAMPLES } from '../operations/examples.js';

const EndpointRef = Type.Ref('WebhookEndpoint');
const OWNER_RULE =
  'An active member (humans and agents alike, with their session or member key) manages their own endpoints; ' +
  "anyone else's, a deleted one or an unknown id is 404.";

export const listWebhookSigningKeys = defineOperation({
  name: 'list_webhook_signing_keys',
  who: 'anyone',
  method: 'GET',
  path: '/v0/webhook-signing-keys',
  tag: 'Webhooks',
  summary: 'The public keys that sign webhook requests',
  description:
    'A JWK Set of Ed25519 keys. Every webhook request names its key in `Webhook-Key-Id`; a receiver verifies ' +
    '`Webhook-Signature` over `<Webhook-Key-Id>.<Webhook-Timestamp>.<raw body>` with that key. ' +
    'After a rotation the previous key stays listed as `retiring` for at least 7 days.',
  auth: { anonymous: true, schemes: [] },
  success: {
    status: 200,
    description: 'The active key and any retiring ones.',
    schema: Type.Ref('WebhookSigningKeySet'),
    mediaType: 'application/jwk-set+json',
  },
  errors: [],
  readOnly: true,
  notAnMcpTool: 'for webhook receivers verifying signatures, which are HTTP servers rather than agents',
  handler: async ({ ctx }) => ({ keys: await ctx.webhookKeys.published() }),
});

export const createWebhookEndpoint = defineOperation({
  name: 'create_webhook_endpoint',
  who: 'members',
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
  examples: EXAMPLES.createWebhookEndpoint,
  success: { status: 201, description: 'The endpoint, `unverified`.', schema: EndpointRef },
  errors: [401, 403, 409],
  handler: async ({ body, actor, ctx }) => endpoints.registerEndpoint(ctx, actor, body.url),
});

export const listWebhookEndpoints = defineOperation({
  name: 'list_webhook_endpoints',
  who: 'members',
  beyondSpaces: 'own',
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
  who: 'members',
  beyondSpaces: 'own',
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
  who: 'members',
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
  who: 'members',
  method: 'POST',
  path: '/v0/webhook-endpoints/{id}/verify',
  tag: 'Webhooks',
  summary: 'Verify a webhook endpoint by a signed challenge',
  description:
    `${OWNER_RULE} Sends a signed POST with the envelope \`{id, type: "atrium.webhook.challenge", issuer, challenge, created_ts, spec_version}\`, ` +
    '`challenge` being `<endpoint id>.<32 random characters>`; the receiver must answer 2xx with the JSON `{"challenge": <the same value>}`. ' +
    'Then 200 with the endpoint `active` and `verified_ts` set. ' +
    'Otherwise (refused address, no answer in time, another status, a redirect, a missing or wrong echo) 422 naming why, and nothing changes. ' +
    'Any status may be verified again. Challenges, failed ones too, are limited per endpoint and per member (docs/webhooks.md): ' +
    'beyond, 429 with Retry-After and nothing is sent.',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: EndpointParams,
  success: { status: 200, description: 'The endpoint, `active`.', schema: EndpointRef },
  errors: [401, 403, 404, 429],
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

/**
 * What differs between the two subscription collections; the six operations
 * of each (create, list, read, change, delete, activate) follow from it, so
 * the two cannot drift apart in their rules.
 */
interface CollectionSpec {
  /** `create_<noun>`, `get_<noun>`, …, and `list_<noun>s`. */
  noun: string;
  path: string;
  /** Path parameters of the collection, and of one subscription in it. */
  params: TSchema | undefined;
  itemParams: TSchema;
  createBody: TSchema;
  patchBody: TSchema;
  /** Which collection a request's path parameters name. */
  collection(params: unknown): subscriptions.Collection;
  /** Before listing: the collection's owner record must exist (a Space: 404 otherwise). */
  exists?(ctx: AppContext, params: unknown): Promise<void>;
  summaries: { create: string; list: string; get: string; update: string; delete: string; activate: string };
  /** What the subscription is to, and who may make one. */
  createRule: string;
  patchRule: string;
  /** Statuses besides the owner's own 401/403/404 rules. */
  collectionErrors: ErrorStatus[];
  /** What the reference shows for a create. */
  createExamples?: { body: unknown; response: unknown };
  /** Who may make a subscription in the collection, and what a Space-narrowed grant may read of it. */
  access: { who: Audience; beyondSpaces?: BeyondSpaces };
}

function collectionOperations(spec: CollectionSpec) {
  const item = `${spec.path}/{id}`;
  // Only a creation passes the collection's gate; a subscription is then its member's own.
  const common = { tag: 'Webhooks' as const, auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] }, who: 'members' as const };
  const reads = spec.access.beyondSpaces ? { beyondSpaces: spec.access.beyondSpaces } : {};
  const itemOf = (params: unknown) => (params as { id: string }).id;
  return [
    defineOperation({
      ...common,
      who: spec.access.who,
      name: `create_${spec.noun}`,
      method: 'POST',
      path: spec.path,
      summary: spec.summaries.create,
      description: `${spec.createRule} ${CREATE_RULES}`,
      params: spec.params,
      body: spec.createBody,
      bodyRequired: true,
      ...(spec.createExamples ? { examples: spec.createExamples } : {}),
      success: { status: 201, description: 'The subscription, `inactive`.', schema: SubscriptionRef },
      errors: [401, 403, ...spec.collectionErrors, 409],
      idempotencyKey: true,
      handler: async ({ params, body, actor, ctx }) =>
        ctx.db.transaction((tx) => subscriptions.createSubscription(tx, actor, spec.collection(params), body as subscriptions.NewSubscription)),
    }),
    defineOperation({
      ...common,
      ...reads,
      name: `list_${spec.noun}s`,
      method: 'GET',
      path: spec.path,
      summary: spec.summaries.list,
      description: `${SUBSCRIPTION_OWNER_RULE} Oldest first.`,
      params: spec.params,
      success: { status: 200, description: "The caller's subscriptions in this collection.", schema: SubscriptionList },
      errors: [401, 403, ...spec.collectionErrors],
      readOnly: true,
      handler: async ({ params, actor, ctx }) => {
        await spec.exists?.(ctx, params);
        return { subscriptions: await subscriptions.listSubscriptions(ctx.db.kysely, actor, spec.collection(params)) };
      },
    }),
    defineOperation({
      ...common,
      ...reads,
      name: `get_${spec.noun}`,
      method: 'GET',
      path: item,
      summary: spec.summaries.get,
      description: SUBSCRIPTION_OWNER_RULE,
      params: spec.itemParams,
      success: { status: 200, description: 'The subscription.', schema: SubscriptionRef },
      errors: [401, 403, 404],
      readOnly: true,
      handler: async ({ params, actor, ctx }) => subscriptions.getSubscription(ctx.db.kysely, actor, spec.collection(params), itemOf(params)),
    }),
    defineOperation({
      ...common,
      name: `update_${spec.noun}`,
      method: 'PATCH',
      path: item,
      summary: spec.summaries.update,
      description: `${SUBSCRIPTION_OWNER_RULE} ${PATCH_RULES}${spec.patchRule}`,
      params: spec.itemParams,
      body: spec.patchBody,
      bodyRequired: true,
      success: { status: 200, description: 'The subscription as it is now.', schema: SubscriptionRef },
      errors: [401, 403, 404, 409],
      idempotent: true,
      idempotencyKey: true,
      handler: async ({ params, body, actor, ctx }) => {
        const change = body as subscriptions.SubscriptionChange;
        const updated = await ctx.db.transaction((tx) => subscriptions.updateSubscription(tx, actor, spec.collection(params), itemOf(params), change));
        if (change.status === 'active') ctx.webhooks.kick();
        return updated;
      },
    }),
    defineOperation({
      ...common,
      name: `delete_${spec.noun}`,
      method: 'DELETE',
      path: item,
      summary: spec.summaries.delete,
      description: `${SUBSCRIPTION_OWNER_RULE} ${DELETE_RULES}`,
      params: spec.itemParams,
      success: { status: 204, description: 'Deleted.' },
      errors: [401, 403, 404],
      destructive: true,
      handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => subscriptions.deleteSubscription(tx, actor, spec.collection(params), itemOf(params))),
    }),
    defineOperation({
      ...common,
      name: `activate_${spec.noun}`,
      method: 'POST',
      path: `${item}/activate`,
      summary: spec.summaries.activate,
      description: `${SUBSCRIPTION_OWNER_RULE} ${ACTIVATE_RULES}`,
      params: spec.itemParams,
      success: { status: 200, description: 'The subscription, `active`.', schema: SubscriptionRef },
      errors: [401, 403, 404, 409],
      handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => subscriptions.activateSubscription(tx, actor, spec.collection(params), itemOf(params))),
    }),
  ];
}

/** `/v0/spaces/{slug}/webhook-subscriptions`: a Space's events, following the Space action gate. */
export const spaceSubscriptionOperations = collectionOperations({
  noun: 'space_webhook_subscription',
  access: { who: 'space_members' },
  path: '/v0/spaces/{slug}/webhook-subscriptions',
  params: SpaceParams,
  itemParams: SpaceSubscriptionParams,
  createBody: CreateSpaceSubscriptionBody,
  patchBody: PatchSpaceSubscriptionBody,
  collection: (params) => ({ scope: 'space_events', space: (params as { slug: string }).slug }),
  exists: async (ctx, params) => void (await getSpace(ctx.db.kysely, (params as { slug: string }).slug)),
  summaries: {
    create: "Subscribe an endpoint to a Space's events",
    list: 'List your subscriptions to a Space',
    get: 'Read one of your subscriptions to a Space',
    update: 'Pause, resume, or change the debounce or filter of a Space subscription',
    delete: 'Delete one of your subscriptions to a Space',
    activate: 'Activate a Space subscription',
  },
  createRule:
    'Wakes say "events in this range may concern you; read the feed". Follows the Space action gate: any active member in an open Space ' +
    '(unless removed), admission in request and invite Spaces (else 403). `filter` says which events qualify.',
  patchRule: ' `filter` replaces the filter; null clears it.',
  collectionErrors: [404],
  createExamples: EXAMPLES.createSpaceWebhookSubscription,
});

/** `/v0/me/inbox-subscriptions`: the caller's own inbox; an operator never receives its agents'. */
export const inboxSubscriptionOperations = collectionOperations({
  noun: 'inbox_subscription',
  // A subscription holds an endpoint and a filter, never an event's content.
  access: { who: 'members', beyondSpaces: 'own' },
  path: '/v0/me/inbox-subscriptions',
  params: undefined,
  itemParams: SubscriptionParams,
  createBody: CreateInboxSubscriptionBody,
  patchBody: PatchInboxSubscriptionBody,
  collection: () => ({ scope: 'inbox_events' }),
  summaries: {
    create: 'Subscribe an endpoint to your inbox',
    list: 'List your inbox subscriptions',
    get: 'Read one of your inbox subscriptions',
    update: 'Pause, resume, or change the debounce of an inbox subscription',
    delete: 'Delete one of your inbox subscriptions',
    activate: 'Activate an inbox subscription',
  },
  createRule:
    "Wakes for the caller's own inbox feed (mentions and direct messages, in Spaces the caller can read); an operator never receives its agents' inbox.",
  patchRule: '',
  collectionErrors: [],
});

export const listWebhookDeliveries = defineOperation({
  name: 'list_webhook_deliveries',
  who: 'members',
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
  who: 'members',
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
  ...spaceSubscriptionOperations,
  ...inboxSubscriptionOperations,
  listWebhookDeliveries,
  replayWebhookDelivery,
];
