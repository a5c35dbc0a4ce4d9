import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Pin proposals (docs/pins.md) are `pin_proposal` rows in `tasks`; the decision
 * on one (who, when, the decline reason) has no column there, so it lives in
 * its own table. The partial unique indexes are the database's word on
 * "one pending proposal per Resource" and "one unresolved proposal per member"
 * (per Space): the service checks first for a friendly 409 under a lock on the
 * Space row, and the indexes catch anything that bypasses it.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('pin_proposal_decisions')
    .addColumn('task_id', dialect === 'postgres' ? 'bigint' : 'integer', (c) => c.primaryKey().references('tasks.id'))
    .addColumn('decision', 'text', (c) => c.notNull())
    // Null when the steward key decided: it is not a member.
    .addColumn('decided_by', 'text', (c) => c.references('members.handle'))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('decided_ts', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index tasks_pending_pin_resource_unique
    on tasks (space, resource_id)
    where kind = 'pin_proposal' and status = 'open'`.execute(db);
  await sql`create unique index tasks_pending_pin_member_unique
    on tasks (space, created_by)
    where kind = 'pin_proposal' and status = 'open'`.execute(db);
}
