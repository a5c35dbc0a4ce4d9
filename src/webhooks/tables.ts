/** One Ed25519 key of the host's webhook key set (docs/webhooks.md). */
export interface WebhookSigningKeyTable {
  /** The key's RFC 7638 JWK thumbprint. */
  kid: string;
  /** The public key, base64url (the JWK's `x`). */
  public_x: string;
  /** The private key sealed under the host's sealing key (signing-keys.ts), never in the clear. */
  sealed_private: string;
  status: 'active' | 'retiring';
  created_ts: string;
  retiring_ts: string | null;
}

export interface WebhooksTables {
  webhook_signing_keys: WebhookSigningKeyTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_subscriptions: WebhookSubscriptionTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  webhook_projection: WebhookProjectionTable;
}

/** A receiver URL a member registered (docs/webhooks.md). */
export interface WebhookEndpointTable {
  id: string;
  owner_member: string;
  /** As registered, WHATWG-serialised. */
  url: string;
  status: 'unverified' | 'active' | 'disabled';
  created_ts: string;
  verified_ts: string | null;
  /** Set when deleted: the row stays for its deliveries' history, but is gone for every operation and quota. */
  deleted_ts: string | null;
}

/** A member's subscription to a Space's events or to their own inbox (docs/webhooks.md). */
export interface WebhookSubscriptionTable {
  id: string;
  owner_member: string;
  endpoint_id: string;
  scope: 'space_events' | 'inbox_events';
  /** The Space's slug (Space scope only). */
  space: string | null;
  /** The filter as sent, JSON (Space scope only; null: every event the owner may read). */
  filter: string | null;
  debounce_ms: number;
  status: 'inactive' | 'active' | 'paused';
  version: number;
  activation_cursor: number | null;
  /** Where the next wake's range starts: the previous wake's `through`, or the activation cursor. */
  owed_after: number | null;
  /** The newest qualifying event not yet in a wake; null when none is owed. */
  owed_through: number | null;
  /** When the first event owed since the last wake was written: the debounce window opens there. */
  owed_since_ts: string | null;
  /** 1: build the next wake at once, whatever the debounce (resume, endpoint verified again). */
  catch_up: number;
  created_ts: string;
  updated_ts: string;
  deleted_ts: string | null;
}

/** One wake: a signed request announcing a range of events, with its attempts (webhook_attempts). */
export interface WebhookDeliveryTable {
  id: string;
  subscription_id: string;
  range_after: number;
  range_through: number;
  /** The exact bytes sent, every attempt and replay alike. */
  body: string;
  status: 'pending' | 'delivered' | 'dead' | 'cancelled';
  /** Attempts made so far, replays included. */
  attempts: number;
  /** `attempts` when the current run began (0, or at a replay): the retry schedule counts from there. */
  run_start: number;
  next_attempt_ts: string | null;
  /** A node sending it holds it until then; past it, another node may take it over (a crashed sender). */
  lease_until: string | null;
  created_ts: string;
  updated_ts: string;
}

export interface WebhookAttemptTable {
  delivery_id: string;
  attempt: number;
  started_ts: string;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
}

/** One row: the newest event cursor the projector has turned into owed wakes. */
export interface WebhookProjectionTable {
  id: number;
  cursor: number;
}
