import type { CompiledQuery, Transaction } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';
import type { Dialect } from '../storage/dialect.js';
import { PreparedStatement } from '../storage/prepared.js';
import { executeAfter, executeWrites } from '../storage/together.js';
import { storedPayload } from './stored-once.js';
import type { EventRoute } from './sequencer.js';
import type { NewEvent } from './types.js';

/**
 * What a committed transaction's events became: numbered events (SQLite), with
 * their routing columns so the tail need not read back what this node just
 * wrote, or queued ones the sequencer will number (PostgreSQL).
 */
export type Appended = { numbered: number[]; routes: EventRoute[] } | { queued: number[] };

/**
 * Appends a transaction's events, as its last step before COMMIT, after the
 * writes it sends late (`Tx.later`).
 *
 * The trap this avoids: a cursor drawn by one transaction may commit after a
 * higher one drawn by another, and a reader tailing `cursor > since` would then
 * skip it for ever (docs/events.md). On SQLite, writers are serialised by the
 * database lock, so numbering at insert is numbering in commit order. On
 * PostgreSQL, writers commit concurrently; numbering them at insert would need
 * a lock held through every commit (one global commit line, which is what this
 * design replaced). So a writer only queues its events in `pending_events`, and
 * the sequencer (sequencer.ts) numbers committed ones later, one batch at a
 * time, so cursor order is the order in which events became visible.
 */
export async function appendEvents(
  trx: Transaction<DatabaseSchema>,
  dialect: Dialect,
  events: readonly NewEvent[],
  createdTs: string,
  writes: readonly CompiledQuery[] = [],
): Promise<Appended> {
  if (dialect === 'postgres' && events.length > 0) {
    // The unit's later writes and its events: one round trip (storage/together.ts).
    const queued = await executeAfter(trx, dialect, writes, QUEUE.bind(trx, { rows: events.map((event) => eventRow(event, createdTs)) }));
    return { queued: queued.rows.map((row) => Number(row.id)) };
  }
  await executeWrites(trx, dialect, writes);
  if (events.length === 0) return { numbered: [], routes: [] };
  const rows = events.map((event) => eventRow(event, createdTs));
  const cursors: number[] = [];
  const routes: EventRoute[] = [];
  for (const [at, row] of rows.entries()) {
    const inserted = await APPEND.first(trx, row);
    if (!inserted) throw new Error('the event insert returned no cursor');
    const cursor = Number(inserted.cursor);
    cursors.push(cursor);
    routes.push({ cursor, space: row.space, subjects: row.subjects, type: row.type });
    const subjects = [...new Set(events[at]!.subjects)];
    if (subjects.length > 0) await SUBJECTS.execute(trx, { cursor, subjects });
    const audience = [...new Set(events[at]!.audience ?? [])];
    if (audience.length > 0) await AUDIENCE.execute(trx, { cursor, audience });
  }
  return { numbered: cursors, routes };
}

// A post appends one event: these statements are built once, not at every write (storage/prepared.ts).
const QUEUE = new PreparedStatement((db, { rows }: { rows: EventRow[] }) => db.insertInto('pending_events').values(rows).returning('id'));
const APPEND = new PreparedStatement((db, row: EventRow) => db.insertInto('events').values(row).returning('cursor'));
const SUBJECTS = new PreparedStatement((db, { cursor, subjects }: { cursor: number; subjects: string[] }) =>
  db.insertInto('event_subjects').values(subjects.map((subject) => ({ subject, cursor }))),
);
const AUDIENCE = new PreparedStatement((db, { cursor, audience }: { cursor: number; audience: string[] }) =>
  db.insertInto('event_audience').values(audience.map((member) => ({ cursor, member }))),
);

interface EventRow {
  type: string;
  space: string | null;
  actor: string | null;
  subjects: string;
  payload: string;
  audience: string | null;
  created_ts: string;
}

function eventRow(event: NewEvent, createdTs: string): EventRow {
  const { actor, payload } = actorColumns(event);
  return {
    type: event.type,
    space: event.space,
    actor,
    subjects: JSON.stringify(event.subjects),
    payload: JSON.stringify(storedPayload(event.type, payload)),
    audience: event.audience ? JSON.stringify(event.audience) : null,
    created_ts: createdTs,
  };
}

function actorColumns(event: NewEvent): { actor: string | null; payload: object } {
  if ('handle' in event.actor) return { actor: event.actor.handle, payload: event.payload };
  // The steward key and the system act with actor null and say what acted in payload.via.
  const via = 'steward' in event.actor ? 'steward_key' : event.actor.system;
  return { actor: null, payload: { ...event.payload, via } };
}
