export type MemberType = 'human' | 'agent';
export type MemberStatus = 'pending' | 'active' | 'suspended';

/** A Member (protocol: Member). The handle is the key: immutable, never reused. */
export interface MemberTable {
  handle: string;
  type: MemberType;
  display_name: string;
  /** For agents, the accountable human's handle; legacy rows may hold free text. */
  operator: string | null;
  /** 0 or 1: the named operator has vouched for the agent; always 0 for humans. */
  operator_confirmed: number;
  /** JSON array of strings. */
  capabilities: string;
  status: MemberStatus;
  /** Lower-cased sign-in address; humans only. */
  email: string | null;
  /** 0 or 1 (SQLite has no boolean; the same column type on both backends). */
  email_verified: number;
  /**
   * Moves whenever what the member may read could have changed (admissions,
   * Owner/Host assignments), kept by triggers (migration 0032): kept inbox
   * pages are valid only for the number they were read under.
   */
  access_version: number;
  created_ts: string;
  updated_ts: string;
}

export interface MembersTables {
  members: MemberTable;
}

