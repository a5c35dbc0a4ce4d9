import type { OAUTH_SCOPES } from './schemas.js';

export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/**
 * A client the authorization server knows: registered through Dynamic Client
 * Registration, or a Client ID Metadata Document fetched from its `client_id`
 * URL and kept for a while (docs/oauth.md, "Clients").
 */
export interface OAuthClientTable {
  client_id: string;
  kind: 'registered' | 'metadata_document';
  client_name: string | null;
  /** JSON array of the redirect URIs the client registered or its document lists. */
  redirect_uris: string;
  created_ts: string;
  /** Registered clients unused for 30 days are forgotten; documents are fetched again after `fetched_ts` ages. */
  last_used_ts: string;
  fetched_ts: string | null;
}

/**
 * An authorization request checked by the authorization endpoint and waiting
 * for the person's decision on the consent page; once approved it holds the
 * code (as a digest) until the code is exchanged or lapses.
 */
export interface OAuthAuthorizationRequestTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  /** What the client asked for. */
  scope: OAuthScope;
  /** The absolute resource URL the token will work at. */
  resource: string;
  created_ts: string;
  expires_ts: string;
  decided_ts: string | null;
  decided_by: string | null;
  decision: 'approved' | 'denied' | null;
  code_hash: string | null;
  code_expires_ts: string | null;
  code_used_ts: string | null;
  /** The grant the approval created: a second use of the code revokes it. */
  grant_id: string | null;
}

/** What a person allowed a client: who it acts as, what it may do, where. */
export interface OAuthGrantTable {
  id: string;
  client_id: string;
  client_name: string;
  /** The signed-in human who consented. */
  human_handle: string;
  /** The member the client's tokens act as: the human, or one of their agents. */
  acting_member: string;
  scope: OAuthScope;
  /** JSON array of Space slugs, or null for every Space. */
  spaces: string | null;
  resource: string;
  created_ts: string;
  last_used_ts: string | null;
  revoked_ts: string | null;
}

/** An access or refresh token; only its SHA-256 digest is kept. */
export interface OAuthTokenTable {
  id: string;
  grant_id: string;
  kind: 'access' | 'refresh';
  token_hash: string;
  created_ts: string;
  expires_ts: string;
  /** A refresh token that was exchanged; presenting it again revokes the grant. */
  rotated_ts: string | null;
  revoked_ts: string | null;
  /** What this token may do: its grant's scope or narrower (a scope-down refresh); null means the grant's (tokens from before migration 0037). */
  scope: OAuthScope | null;
}

export interface OAuthTables {
  oauth_clients: OAuthClientTable;
  oauth_authorization_requests: OAuthAuthorizationRequestTable;
  oauth_grants: OAuthGrantTable;
  oauth_tokens: OAuthTokenTable;
}
