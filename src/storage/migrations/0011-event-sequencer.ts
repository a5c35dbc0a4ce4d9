import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * On PostgreSQL, a writing transaction no longer numbers its events: it queues
 * them in `pending_events`, and one sequencer numbers committed ones and moves
 * them into `events` (src/events/sequencer.ts, docs/events.md). Nothing else
 * may draw a cursor, so the column loses its sequence default. SQLite keeps
 * numbering at insert (its writers are serialised); the queue exists there too
 * only so both backends have one schema.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('pending_events')
    .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('space', 'text')
    .addColumn('actor', 'text')
    .addColumn('subjects', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('audience', 'text')
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .execute();
  if (dialect === 'postgres') {
    await sql`alter table events alter column cursor drop default`.execute(db);
    await sql`drop sequence if exists events_cursor_seq`.execute(db);
  }
}
