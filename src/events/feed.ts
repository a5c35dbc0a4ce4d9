import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import { invalid } from '../shared/errors.js';
import { PROTOCOL } from '../shared/protocol.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { EventTable } from './tables.js';
import type { AtriumEvent } from './types.js';

export interface FeedPage {
  events: AtriumEvent[];
  cursor: number;
  protocol: string;
}

type EventRow = Selectable<EventTable>;
export type EventQuery = SelectQueryBuilder<DatabaseSchema, 'events', EventRow>;

/**
 * Reads one feed page: events with `cursor > since`, oldest first. Every event
 * a reader can see was numbered in commit order (events/append.ts), so a reader
 * that resumes from the last cursor it was handed never misses one. An empty
 * page keeps `since` (reference: Feeds 3).
 */
export async function readFeed(
  db: Kysely<DatabaseSchema>,
  select: (q: EventQuery) => EventQuery,
  since: number,
  limit: number,
): Promise<FeedPage> {
  await rejectCursorBeyondHead(db, since);
  const rows = await select(db.selectFrom('events').selectAll())
    .where('events.cursor', '>', since)
    .orderBy('events.cursor', 'asc')
    .limit(limit)
    .execute();
  const events = rows.map(toEvent);
  return { events, cursor: events.length > 0 ? events[events.length - 1]!.cursor : since, protocol: PROTOCOL };
}

/**
 * A cursor beyond the newest event was never handed out by this host (another
 * host's cursor, or a reset database): an error, not a silently empty page that
 * would hide every event until the log caught up with it.
 */
async function rejectCursorBeyondHead(db: Kysely<DatabaseSchema>, since: number): Promise<void> {
  if (since === 0) return;
  const head = await db.selectFrom('events').select((eb) => eb.fn.max('cursor').as('head')).executeTakeFirst();
  if (since > Number(head?.head ?? 0)) throw invalid(`since ${since} is beyond the newest event on this host`);
}

export function toEvent(row: EventRow): AtriumEvent {
  return {
    cursor: Number(row.cursor),
    type: row.type,
    space: row.space,
    actor: row.actor,
    subjects: JSON.parse(row.subjects) as string[],
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    created_ts: row.created_ts,
  };
}
