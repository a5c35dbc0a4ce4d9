export type MemberKeyOrigin = 'agent_registration' | 'client_activation';

/** An API credential (`sk_atrium_…`). Only the SHA-256 digest of the key is kept. */
export interface MemberKeyTable {
  id: string;
  member_handle: string;
  origin: MemberKeyOrigin;
  key_hash: string;
  /** The first characters of the key, enough for a human to recognise it. */
  key_prefix: string;
  client_name: string | null;
  created_ts: string;
  last_used_ts: string | null;
  revoked_ts: string | null;
}

/** A human sign-in session; the token is kept only as a digest. */
export interface SessionTable {
  id: string;
  member_handle: string;
  token_hash: string;
  created_ts: string;
  expires_ts: string;
  revoked_ts: string | null;
}

/** A one-time e-mail sign-in code (protocol: Sessions): 10 minutes, single use, 5 tries. */
export interface SignInCodeTable {
  id: string;
  email: string;
  code_hash: string;
  created_ts: string;
  expires_ts: string;
  failed_attempts: number;
  /** Set when the code was used, burned by wrong tries, or replaced by a newer one. */
  spent_ts: string | null;
}

export interface IdentityTables {
  member_keys: MemberKeyTable;
  sessions: SessionTable;
  sign_in_codes: SignInCodeTable;
}
