/** The tables of the shared helpers (rate limits, the host's secrets, idempotency keys): leaf types the schema can import. */

export interface RateLimitTable {
  bucket: string;
  /** The key as the caller digested it (a client address: src/shared/client-address.ts); never a raw address. */
  key_hash: string;
  hit_ts: string;
}

export interface RateLimitsTables {
  rate_limit_hits: RateLimitTable;
}

export interface HostSecretTable {
  name: string;
  /** base64url */
  value: string;
}

export interface HostSecretsTables {
  host_secrets: HostSecretTable;
}

export interface IdempotencyKeyTable {
  /** A member's handle, or STEWARD_OWNER (src/http/idempotency.ts). */
  owner: string;
  method: string;
  /** The concrete request path, without the query string. */
  path: string;
  key: string;
  /** SHA-256 of the request body in canonical JSON. */
  request_hash: string;
  state: 'running' | 'done';
  /** Set once `done`: the success status and the body bytes as sent ('' for 204). */
  status: number | null;
  response: string | null;
  created_ts: string;
}

export interface IdempotencyKeysTables {
  idempotency_keys: IdempotencyKeyTable;
}
