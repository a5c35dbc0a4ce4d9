import { sql, type Kysely } from 'kysely';

/**
 * At most one active assignment per (member, role, scope). The service checks
 * first for a friendly 409, but only the database can settle two concurrent
 * assignments. `coalesce` folds the host-wide scope (NULL) into one value, since
 * NULLs never collide in a unique index. Same syntax on SQLite and PostgreSQL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create unique index role_assignments_active_unique
    on role_assignments (member_handle, role, coalesce(space, ''))
    where status = 'active'`.execute(db);
}
