import { sql, type Transaction } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';
import type { Dialect } from '../storage/dialect.js';
import type { NewEvent } from './types.js';

/**
 * Appends a transaction's events just before it commits.
 *
 * The trap: a sequence value drawn by one transaction may commit after a higher
 * value drawn by another, and a reader tailing `cursor > since` would then skip
 * it for ever. On PostgreSQL we therefore draw cursors only while holding a
 * transaction-scoped advisory lock, taken as the last step before COMMIT and
 * released by COMMIT itself (after the rows became visible). Cursor order is then
 * commit order. The lock covers only "insert events; commit", not the
 * transaction's other work, so concurrent writers overlap everywhere except in
 * that short tail. On SQLite, writers are already serialised by the database
 * lock, so AUTOINCREMENT order is commit order. See docs/events.md.
 */
export async function appendEvents(
  trx: Transaction<DatabaseSchema>,
  dialect: Dialect,
  events: readonly NewEvent[],
  createdTs: string,
): Promise<number[]> {
  if (events.length === 0) return [];
  if (dialect === 'postgres') {
    await sql`select pg_advisory_xact_lock(${EVENT_LOG_LOCK_KEY}, hashtext(current_schema()))`.execute(trx);
  }
  const cursors: number[] = [];
  for (const event of events) {
    const { actor, payload } = actorColumns(event);
    const row = await trx
      .insertInto('events')
      .values({
        type: event.type,
        space: event.space,
        actor,
        subjects: JSON.stringify(event.subjects),
        payload: JSON.stringify(payload),
        created_ts: createdTs,
        audience: event.audience ? JSON.stringify(event.audience) : null,
      })
      .returning('cursor')
      .executeTakeFirstOrThrow();
    const cursor = Number(row.cursor);
    cursors.push(cursor);
    const subjects = [...new Set(event.subjects)];
    if (subjects.length > 0) {
      await trx
        .insertInto('event_subjects')
        .values(subjects.map((subject) => ({ subject, cursor })))
        .execute();
    }
    const audience = [...new Set(event.audience ?? [])];
    if (audience.length > 0) {
      await trx
        .insertInto('event_audience')
        .values(audience.map((member) => ({ cursor, member })))
        .execute();
    }
  }
  return cursors;
}

/**
 * First half of the two-int advisory lock key: "ATRI" as an int32. The second
 * half is the schema, so hosts sharing one PostgreSQL database (tests do) keep
 * separate event logs without serialising each other.
 */
export const EVENT_LOG_LOCK_KEY = 0x41545249;

function actorColumns(event: NewEvent): { actor: string | null; payload: object } {
  if ('handle' in event.actor) return { actor: event.actor.handle, payload: event.payload };
  // protocol: The event object. The steward key acts with actor null and payload.via.
  const via = 'steward' in event.actor ? 'steward_key' : event.actor.system;
  return { actor: null, payload: { ...event.payload, via } };
}
