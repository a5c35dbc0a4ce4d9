import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Tasks (docs/tasks.md). Ids come from one sequence per host.
 * The completion's provenance lives in plain columns so it can be queried;
 * `resource_id` and `rationale` let a pin proposal be a `pin_proposal` task.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  await db.schema
    .createTable('tasks')
    .addColumn('id', serial, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('space', 'text', (c) => c.notNull().references('spaces.slug'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('claimant', 'text', (c) => c.references('members.handle'))
    .addColumn('claimed_ts', 'text')
    .addColumn('submitted_ts', 'text')
    .addColumn('worker', 'text', (c) => c.references('members.handle'))
    .addColumn('worker_principal', 'text')
    .addColumn('completer', 'text', (c) => c.references('members.handle'))
    .addColumn('completer_principal', 'text')
    .addColumn('assurance', 'text')
    .addColumn('required_assurance', 'text')
    .addColumn('completed_ts', 'text')
    .addColumn('resource_id', 'text')
    .addColumn('rationale', 'text')
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('updated_ts', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tasks_space_id_idx').on('tasks').columns(['space', 'id']).execute();
  await db.schema.createIndex('tasks_space_status_idx').on('tasks').columns(['space', 'status', 'id']).execute();
}
