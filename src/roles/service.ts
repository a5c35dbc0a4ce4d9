import type { EventActor } from '../events/types.js';
import { getMember } from '../members/service.js';
import { conflict, invalid } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Tx } from '../storage/database.js';
import type { Role, RoleAssignmentTable } from './tables.js';

export type RoleAssignment = Omit<RoleAssignmentTable, 'member_handle' | 'revoked_by' | 'revoked_ts'> & { member: string };

export interface NewAssignment {
  member: string;
  role: Role;
  space?: string | null;
}

/**
 * Assigns a role (decisions §4). Agents never hold `owner` or `host`; a
 * maintainer is always scoped to one Space. Authority to assign is checked by
 * the caller of this function (operation or admin CLI).
 */
export async function assignRole(tx: Tx, actor: EventActor, input: NewAssignment): Promise<RoleAssignment> {
  const member = await getMember(tx.db, input.member);
  const space = input.space ?? null;
  if (member.type === 'agent' && input.role !== 'maintainer') throw invalid('agents never hold the owner or host role');
  if (input.role === 'maintainer' && space === null) throw invalid('the maintainer role is always scoped to one Space');
  if (space !== null) {
    const exists = await tx.db.selectFrom('spaces').select('slug').where('slug', '=', space).executeTakeFirst();
    if (!exists) throw invalid(`no such Space: ${space}`);
  }
  const duplicate = await tx.db
    .selectFrom('role_assignments')
    .select('id')
    .where('member_handle', '=', member.handle)
    .where('role', '=', input.role)
    .where('status', '=', 'active')
    .where((eb) => (space === null ? eb('space', 'is', null) : eb('space', '=', space)))
    .executeTakeFirst();
  if (duplicate) throw conflict(`${member.handle} already holds ${input.role}${space ? ` in ${space}` : ' host-wide'}`);
  const row: RoleAssignmentTable = {
    id: newId('role'),
    member_handle: member.handle,
    role: input.role,
    space,
    status: 'active',
    created_by: 'handle' in actor ? actor.handle : null,
    created_ts: tx.now.toISOString(),
    revoked_by: null,
    revoked_ts: null,
  };
  await tx.db.insertInto('role_assignments').values(row).execute();
  tx.emit({
    type: 'role_assigned',
    // decisions §7: role events belong to no Space; the host-wide feed carries them.
    space: null,
    actor,
    subjects: [`member:${member.handle}`, ...(space ? [`space:${space}`] : [])],
    payload: { id: row.id, member: member.handle, role: row.role, space },
  });
  return toAssignment(row);
}

export function toAssignment(row: RoleAssignmentTable): RoleAssignment {
  return {
    id: row.id,
    member: row.member_handle,
    role: row.role,
    space: row.space,
    status: row.status,
    created_by: row.created_by,
    created_ts: row.created_ts,
  };
}
