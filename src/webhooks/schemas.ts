import { Type } from '@sinclair/typebox';
import { idPattern } from '../shared/ids.js';
import { Handle, StringEnum, Timestamp } from '../shared/schemas.js';
import { SpaceSlugParam, spaceParams } from '../spaces/schemas.js';
import { DEFAULT_DEBOUNCE_MS, MAX_DEBOUNCE_MS, MIN_DEBOUNCE_MS } from './debounce.js';
import { WebhookFilterSchema } from './filter.js';

export const WebhookSigningKeySchema = Type.Object(
  {
    kid: Type.String({ description: 'Key id: the RFC 7638 thumbprint of the key; sent as `Webhook-Key-Id`' }),
    kty: StringEnum(['OKP']),
    crv: StringEnum(['Ed25519']),
    x: Type.String({ description: 'The public key, unpadded base64url (RFC 8037)' }),
    alg: StringEnum(['EdDSA']),
    use: StringEnum(['sig']),
    status: StringEnum(['active', 'retiring'], {
      description: '`active` signs new requests; a `retiring` key was rotated out and stays listed for at least 7 days',
    }),
    created_ts: Timestamp,
  },
  { $id: 'WebhookSigningKey', additionalProperties: false },
);

export const WebhookSigningKeySetSchema = Type.Object(
  { keys: Type.Array(Type.Ref('WebhookSigningKey')) },
  { $id: 'WebhookSigningKeySet', additionalProperties: false, description: 'A JWK Set (RFC 7517) of public Ed25519 keys' },
);


const ENDPOINT_ID = idPattern('whep');

export const WebhookEndpointSchema = Type.Object(
  {
    id: Type.String({ pattern: ENDPOINT_ID, description: 'Endpoint id (`whep_…`)' }),
    url: Type.String({ description: 'The receiver URL as registered (WHATWG-serialised)' }),
    status: StringEnum(['unverified', 'active', 'disabled'], {
      description: '`unverified` until a challenge succeeds; only `active` endpoints are sent to; `disabled` after a receiver answered 410, until verified again',
    }),
    owner_member: Handle,
    created_ts: Timestamp,
    verified_ts: Type.Union([Timestamp, Type.Null()], { description: 'When a challenge last succeeded; null until then' }),
  },
  { $id: 'WebhookEndpoint', additionalProperties: false },
);

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'An absolute https URL with no user name or password whose host resolves only to public addresses (http and private addresses only inside ATRIUM_EGRESS_ALLOW_CIDRS)',
    }),
  },
  { additionalProperties: false },
);

export const EndpointParams = Type.Object({ id: Type.String({ pattern: ENDPOINT_ID, description: 'Endpoint id' }) }, { additionalProperties: false });

const SUBSCRIPTION_ID = idPattern('whsub');
const DELIVERY_ID = idPattern('whd');

export { DEFAULT_DEBOUNCE_MS, MAX_DEBOUNCE_MS, MIN_DEBOUNCE_MS };

const Cursor = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });
const DebounceMs = Type.Integer({
  minimum: MIN_DEBOUNCE_MS,
  maximum: MAX_DEBOUNCE_MS,
  description: 'How long after the first qualifying event a wake waits to gather more, in milliseconds (0: at once)',
});
// A reference, so the contract names the grammar once; the edge validates it before a handler sees it (handlers cast to WebhookFilter).
const FilterOrNull = Type.Union([Type.Ref('WebhookFilter'), Type.Null()]);

export const WebhookSubscriptionSchema = Type.Object(
  {
    id: Type.String({ pattern: SUBSCRIPTION_ID, description: 'Subscription id (`whsub_…`)' }),
    scope: StringEnum(['space_events', 'inbox_events'], { description: "`space_events`: a Space's feed; `inbox_events`: the owner's inbox feed" }),
    space: Type.Optional(Type.String({ ...SpaceSlugParam, description: 'The Space (Space scope only)' })),
    endpoint_id: Type.String({ pattern: ENDPOINT_ID, description: 'The endpoint wakes are sent to' }),
    owner_member: Handle,
    filter: Type.Optional({ ...FilterOrNull, description: 'The filter as sent, null when none (Space scope only)' }),
    debounce_ms: DebounceMs,
    status: StringEnum(['inactive', 'active', 'paused'], {
      description: '`inactive` until activated; `active` sends wakes; `paused` sends nothing until resumed',
    }),
    version: Type.Integer({ minimum: 1, description: 'Starts at 1; every real change raises it by 1. Each wake carries the version it was built under' }),
    activation_cursor: Type.Union([Cursor('Events after this cursor qualify'), Type.Null()], { description: 'The host\'s newest cursor at activation; null before' }),
    created_ts: Timestamp,
    updated_ts: Timestamp,
  },
  { $id: 'WebhookSubscription', additionalProperties: false },
);

export const CreateSpaceSubscriptionBody = Type.Object(
  {
    endpoint_id: Type.String({ pattern: ENDPOINT_ID, description: 'One of your endpoints, any status' }),
    debounce_ms: Type.Optional({ ...DebounceMs, default: DEFAULT_DEBOUNCE_MS }),
    filter: Type.Optional(FilterOrNull),
  },
  { additionalProperties: false },
);

export const CreateInboxSubscriptionBody = Type.Object(
  {
    endpoint_id: Type.String({ pattern: ENDPOINT_ID, description: 'One of your endpoints, any status' }),
    debounce_ms: Type.Optional({ ...DebounceMs, default: DEFAULT_DEBOUNCE_MS }),
  },
  { additionalProperties: false },
);

const PatchStatus = StringEnum(['paused', 'active'], { description: '`paused` stops wakes; `active` resumes them with one catch-up wake' });

export const PatchSpaceSubscriptionBody = Type.Object(
  {
    status: Type.Optional(PatchStatus),
    debounce_ms: Type.Optional(DebounceMs),
    filter: Type.Optional({ ...FilterOrNull, description: 'A new filter; null clears it' }),
  },
  { additionalProperties: false },
);

export const PatchInboxSubscriptionBody = Type.Object(
  { status: Type.Optional(PatchStatus), debounce_ms: Type.Optional(DebounceMs) },
  { additionalProperties: false },
);

const SubscriptionId = Type.String({ pattern: SUBSCRIPTION_ID, description: 'Subscription id' });
export const SpaceSubscriptionParams = spaceParams({ id: SubscriptionId });
export const SubscriptionParams = Type.Object({ id: SubscriptionId }, { additionalProperties: false });
export const DeliveryParams = Type.Object({ id: Type.String({ pattern: DELIVERY_ID, description: 'Delivery id' }) }, { additionalProperties: false });

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String({ pattern: DELIVERY_ID, description: 'Delivery id (`whd_…`): the `Webhook-Id` of every attempt' }),
    subscription_id: Type.String({ pattern: SUBSCRIPTION_ID }),
    event_range: Type.Object(
      { after: Cursor('Exclusive'), through: Cursor('Inclusive: the newest event announced') },
      { additionalProperties: false, description: 'The events announced: `after < cursor <= through`' },
    ),
    status: StringEnum(['pending', 'delivered', 'dead', 'cancelled'], {
      description: '`pending`: to be sent or retried; `delivered`: a 2xx answer; `dead`: attempts ran out or 410; `cancelled`: no longer sendable (see docs)',
    }),
    attempts: Type.Array(
      Type.Object(
        {
          attempt: Type.Integer({ minimum: 1, description: '1, 2, …; replays go on counting' }),
          started_ts: Timestamp,
          duration_ms: Type.Integer({ minimum: 0 }),
          response_status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's status; null when none came" }),
          error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed; null when it succeeded' }),
        },
        { additionalProperties: false },
      ),
    ),
    created_ts: Timestamp,
    next_attempt_ts: Type.Union([Timestamp, Type.Null()], { description: 'When the next attempt is due; null when none is' }),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

export const webhookSchemas = [
  WebhookSigningKeySchema,
  WebhookSigningKeySetSchema,
  WebhookEndpointSchema,
  WebhookFilterSchema,
  WebhookSubscriptionSchema,
  WebhookDeliverySchema,
];
