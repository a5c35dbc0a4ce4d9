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
}
