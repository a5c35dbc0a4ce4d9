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
