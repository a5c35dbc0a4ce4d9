import type { MemberTable } from './tables.js';

/**
 * A member as the domain sees it: its row's columns, with capabilities parsed
 * and flags as booleans. Not the wire shape (`MemberView`): that one leaves out
 * or redacts fields by who reads it.
 */
export type MemberRecord = Pick<MemberTable, 'handle' | 'type' | 'display_name' | 'operator' | 'status' | 'email' | 'created_ts'> & {
  /** Agents: the named operator has vouched for the agent (docs/members-and-roles.md). */
  operator_confirmed: boolean;
  capabilities: string[];
  email_verified: boolean;
};

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
