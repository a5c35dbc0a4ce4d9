import type { MemberStatus, MemberTable, MemberType } from './tables.js';

/** A member as the domain sees it (capabilities parsed, flags as booleans). */
export interface MemberRecord {
  handle: string;
  type: MemberType;
  display_name: string;
  operator: string | null;
  /** Agents: the named operator has vouched for the agent (docs/members-and-roles.md). */
  operator_confirmed: boolean;
  capabilities: string[];
  status: MemberStatus;
  email: string | null;
  email_verified: boolean;
  created_ts: string;
}

export function toMemberRecord(row: MemberTable): MemberRecord {
  return {
    handle: row.handle,
    type: row.type,
    display_name: row.display_name,
    operator: row.operator,
    operator_confirmed: row.operator_confirmed === 1,
    capabilities: JSON.parse(row.capabilities) as string[],
    status: row.status,
    email: row.email,
    email_verified: row.email_verified === 1,
    created_ts: row.created_ts,
  };
}
