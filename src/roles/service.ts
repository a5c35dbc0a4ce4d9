import type { Kysely } from 'kysely';
import type { EventActor } from '../events/types.js';
import { findMember } from '../members/service.js';
import { conflict, invalid, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Tx } from '../storage/database.js';
import { isUniqueViolation } from '../storage/unique-violation.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { Role, RoleAssignmentTable } from './tables.js';

export type RoleAssignment = Omit<RoleAssignmentTable, 'member_handle' | 'revoked_by' | 'revoked_ts'> & { member: string };

export interface NewAssignment {
  member: string;
  role: Role;
  space?: string | null;
}

/**
 * Assigns a role (protocol: Role assignments). Agents never hold `owner` or `host`; a
 * maintainer is always scoped to one Space. Authority to assign is checked by
 * the caller of this function (operation or admin CLI).
 */
export async function assignRole(tx: Tx, actor: EventActor, input: NewAssignment): Promise<RoleAssignment> {
  // The member is a reference inside the body, like the Space: an unknown one is
  // invalid input (422), not a missing resource (docs/decisions-local.md).
  const member = await findMember(tx.db, input.member);
  if (!member) throw invalid('unknown_reference', `no such member: ${input.member}`);
  const space = input.space ?? null;
  if (member.type === 'agent' && input.role !== 'maintainer') throw invalid('validation_failed', 'agents never hold the owner or host role');
  if (input.role === 'maintainer' && space === null) throw invalid('validation_failed', 'the maintainer role is always scoped to one Space');
  if (space !== null) {
    const exists = await tx.db.selectFrom('spaces').select('slug').where('slug', '=', space).executeTakeFirst();
    if (!exists) throw invalid('unknown_reference', `no such Space: ${space}`);
  }
  const duplicate = await tx.db
    .selectFrom('role_assignments')
    .select('id')
    .where('member_handle', '=', member.handle)
    .where('role', '=', input.role)
    .where('status', '=', 'active')
    .where((eb) => (space === null ? eb('space', 'is', null) : eb('space', '=', space)))
    .executeTakeFirst();
  if (duplicate) throw conflict('role_already_held', `${member.handle} already holds ${input.role}${space ? ` in ${space}` : ' host-wide'}`);
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
  try {
    await tx.db.insertInto('role_assignments').values(row).execute();
  } catch (err) {
    // A concurrent assignment of the same role won between our check and insert.
    if (isUniqueViolation(err)) throw conflict('role_already_held', `${member.handle} already holds ${input.role}${space ? ` in ${space}` : ' host-wide'}`);
    throw err;
  }
  tx.emit({
    type: 'role_assigned',
    // protocol: Event types. Role events belong to no Space; the host-wide feed carries them.
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

export interface AssignmentFilter {
  member?: string;
  space?: string;
  /** Active assignments unless asked otherwise (docs/members-and-roles.md). */
  status?: 'active' | 'revoked' | 'all';
}

/** Oldest first, so a listing reads as the history of who was given what; same-instant ties by member. */
export async function listAssignments(db: Kysely<DatabaseSchema>, filter: AssignmentFilter = {}): Promise<RoleAssignment[]> {
  let query = db
    .selectFrom('role_assignments')
    .selectAll()
    .orderBy('created_ts')
    .orderBy('member_handle')
    .orderBy('role')
    .orderBy('id');
  if (filter.member !== undefined) query = query.where('member_handle', '=', filter.member);
  if (filter.space !== undefined) query = query.where('space', '=', filter.space);
  const status = filter.status ?? 'active';
  if (status !== 'all') query = query.where('status', '=', status);
  return (await query.execute()).map(toAssignment);
}

export async function getAssignment(db: Kysely<DatabaseSchema>, id: string): Promise<RoleAssignment> {
  const row = await db.selectFrom('role_assignments').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('role_assignment_not_found', `no such role assignment: ${id}`);
  return toAssignment(row);
}

/**
 * Revokes an active assignment (protocol: Role assignments). Authority to revoke is checked by
 * the caller. The conditional update lets only one of two racing revocations win.
 */
export async function revokeRole(tx: Tx, actor: EventActor, id: string): Promise<RoleAssignment> {
  const assignment = await getAssignment(tx.db, id);
  if (assignment.status === 'revoked') throw conflict('role_already_revoked', `role assignment ${id} is already revoked`);
  // Like self-suspension: an owner dropping their own host-wide owner role would
  // lose the power to undo it; another owner or the steward key must do it.
  if ('handle' in actor && actor.handle === assignment.member && assignment.role === 'owner' && assignment.space === null) {
    throw conflict('self_action_refused', 'you cannot revoke your own host-wide owner role; ask another owner or use the steward key');
  }
  const result = await tx.db
    .updateTable('role_assignments')
    .set({ status: 'revoked', revoked_by: 'handle' in actor ? actor.handle : null, revoked_ts: tx.now.toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw conflict('role_already_revoked', `role assignment ${id} is already revoked`);
  tx.emit({
    type: 'role_revoked',
    space: null,
    actor,
    subjects: [`member:${assignment.member}`, ...(assignment.space ? [`space:${assignment.space}`] : [])],
    payload: { id, member: assignment.member, role: assignment.role, space: assignment.space },
  });
  return getAssignment(tx.db, id);
}
