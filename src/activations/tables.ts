import type { ACTIVATION_STATUSES } from './schemas.js';

export type ActivationStatus = (typeof ACTIVATION_STATUSES)[number];

/**
 * A client activation (protocol: Client activation). Neither the poll secret
 * nor the API key is stored: only their digests, and a random salt from which,
 * together with the secret, the poll re-derives the key at delivery.
 */
export interface ClientActivationTable {
  code: string;
  client_name: string;
  /** `pending`, `approved` or `consumed`; `expired` is computed from `expires_ts`. */
  status: Exclude<ActivationStatus, 'expired'>;
  poll_secret_hash: string;
  key_salt: string;
  /** Digest and display prefix of the key the poll will derive and deliver. */
  key_hash: string;
  key_prefix: string;
  /** Keyed digest of the network address that created it (src/shared/client-address.ts; the creation limit itself lives in rate_limit_hits). */
  client_address: string;
  member_handle: string | null;
  credential_id: string | null;
  created_ts: string;
  expires_ts: string;
  approved_ts: string | null;
  consumed_ts: string | null;
  last_polled_ts: string | null;
  /** The interval this activation's poller must keep, once polling too fast has raised it (null: the configured one). */
  poll_interval_seconds: number | null;
}

export interface ActivationsTables {
  client_activations: ClientActivationTable;
}
