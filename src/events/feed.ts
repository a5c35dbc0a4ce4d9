import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Actor } from '../identity/actor.js';
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
 * page keeps `since` (protocol: Cursors and paging).
 *
 * `reader` is who reads: an event with an audience (a direct message) is in the
 * page only for a member of that audience. Hiding an event from one reader opens
 * no gap: the page's cursor is the last event it holds, never one it skipped.
 * Without a reader, every audience-restricted event stays hidden.
 */
export async function readFeed(
  db: Kysely<DatabaseSchema>,
  select: (q: EventQuery) => EventQuery,
  since: number,
  limit: number,
  reader: Actor | null = null,
): Promise<FeedPage> {
  await rejectCursorBeyondHead(db, since);
  const handle = readerHandle(reader);
  const rows = await select(db.selectFrom('events').selectAll())
    .where((eb) =>
      handle === null
        ? eb('events.audience', 'is', null)
        : eb.or([
            eb('events.audience', 'is', null),
            eb.exists(
              eb
                .selectFrom('event_audience')
                .select('event_audience.cursor')
                .whereRef('event_audience.cursor', '=', 'events.cursor')
                .where('event_audience.member', '=', handle),
            ),
          ]),
    )
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

/** The member an audience-restricted event may be shown to: an active member caller, nobody else. */
function readerHandle(reader: Actor | null): string | null {
  return reader?.kind === 'member' && reader.member.status === 'active' ? reader.member.handle : null;
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
