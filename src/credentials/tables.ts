/**
 * A one-use approval an Owner/Host gave for one exact external request
 * (docs/gateway.md, "The service side"). It binds everything the ticket will:
 * member, Space, connection, task, run, purpose, method, exact URL, the header
 * set and the body's hash. Header values and the body are kept only as
 * digests: an approval needs to recognise them, never to show them.
 */
export interface CredentialApprovalTable {
  id: string;
  space: string;
  connection_id: string;
  member_handle: string;
  task_id: number | null;
  run_id: string;
  purpose: string;
  method: string;
  /** The exact URL, equal to its WHATWG serialisation (query included). */
  url: string;
  /** JSON array of the lower-case header names, sorted. */
  header_names: string;
  /** Hex SHA-256 of the RFC 8785 JSON of the lower-case header map (names and values). */
  headers_sha256: string;
  /** Hex SHA-256 of the body's decoded bytes (of nothing, when there is no body). */
  body_sha256: string;
  reason: string;
  /** Who approved: a handle, or null for the steward key. */
  created_by: string | null;
  created_ts: string;
  expires_ts: string;
  /** Set, together with the run's reservation, when a ticket is being issued under it. */
  consumed_ts: string | null;
}

/**
 * A member's run ids that have a ticket, or are getting one. The primary key
 * makes a run id usable once per member: of two racing issuances, one insert
 * wins. `reserved` rows exist only while the gateway is being asked; a refusal
 * deletes the row again, so refusals never use a run id up.
 */
export interface CredentialRunTable {
  member_handle: string;
  run_id: string;
  space: string;
  connection_id: string;
  approval_id: string | null;
  state: 'reserved' | 'issued';
  reserved_ts: string;
  issued_ts: string | null;
}

export interface CredentialsTables {
  credential_approvals: CredentialApprovalTable;
  credential_runs: CredentialRunTable;
}
