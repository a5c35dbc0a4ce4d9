import { createHash } from 'node:crypto';
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Actor } from '../identity/actor.js';
import type { HeldWait, WaitAllowance } from '../operations/waits.js';
import { invalid } from '../shared/errors.js';
import { PROTOCOL } from '../shared/protocol.js';
import type { Database } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { emittedPayload, referencedMessageId, referencedVersion } from './stored-once.js';
import type { EventTable } from './tables.js';
import type { EventTail } from './tail.js';
import type { AtriumEvent, EventType, FeedAnswer, FeedPage } from './types.js';

/** Where feeds are read from: the database, and its dialect (a page reads message bodies by reference, stored-once.ts). */
export type EventStore = Pick<Database, 'kysely' | 'dialect'>;

type EventRow = Selectable<EventTable>;
export type EventQuery = SelectQueryBuilder<DatabaseSchema, 'events', EventRow>;

/** One feed: the tail key that says when it may have something new, and how to select its events. */
export interface Feed {
  key: string;
  /** Narrows the event query to this feed; may read the database (access filters), so it runs only when needed. */
  select(): Promise<(q: EventQuery) => EventQuery>;
  /**
   * The subject whose events make up this feed, when there is one (the inbox:
   * the member's mention subject); `select` may narrow them further. A page
   * then walks that subject's rows in `event_subjects` in cursor order and
   * stops after a page. Without it a page walks the log, which suits a feed
   * dense in the log (a Space), not one whose events may lie anywhere in it.
   */
  drivenBy?: string;
  /**
   * Whether this node may keep the pages it served (page-cache.ts): `true`
   * where a page depends only on the log and who reads it; a string where it
   * also depends on something that can change without an event in this feed,
   * naming that something as it stands now, so a page is kept under it and
   * never served once it moved (the inbox: the reader's access version).
   */
  keepsPages: boolean | string;
}

export interface FeedRead {
  since: number;
  limit: number;
  /** Seconds to wait for a qualifying event when the page would be empty (long poll); 0 answers at once. */
  wait?: number;
  /** Instead of the events after `since`: the newest this many, as of this node's head. */
  newest?: number;
  /** With `newest`: the newest below this cursor instead, to read further back. */
  before?: number;
}

/**
 * Reads one feed page: events with `cursor > since`, oldest first. Every event
 * a reader can see was numbered in commit order (docs/events.md), so a reader
 * that resumes from the last cursor it was handed never misses one. An empty
 * page keeps `since` (protocol: Feeds).
 *
 * When this node's tail says the feed has nothing after `since`, the page is
 * empty without reading any event row (a tail poll costs no query). With
 * `wait`, an empty page is held until an event of this feed commits, on any
 * node, or the wait ends; then the page is read as usual, so a long poll and
 * a plain one answer alike. Waiting takes a hold from `waits` (the edge's
 * fair share of long polls, docs/http.md): without one the page is answered
 * at once with `retryAfter`, and a hold ends early when its client goes away
 * or the host needs the connection back, so nothing waits for nobody.
 *
 * `reader` is who reads: an event with an audience (a direct message) is in the
 * page only for a member of that audience. Hiding an event from one reader opens
 * no gap: the page's cursor is the last event it holds, never one it skipped.
 * Without a reader, every audience-restricted event stays hidden.
 *
 * Pages of feeds that allow it are kept as sent, and served again without a
 * query while they are still what a read would answer (page-cache.ts).
 */
export async function readFeed(
  store: EventStore,
  tail: EventTail,
  feed: Feed,
  read: FeedRead,
  reader: Actor | null,
  waits: WaitAllowance,
): Promise<FeedAnswer> {
  const { since, limit } = read;
  if (read.newest !== undefined) {
    const selection = { select: await feed.select(), drivenBy: feed.drivenBy };
    return serialise(await readNewest(store, selection, tail.head, read.newest, read.before, readerHandle(reader)));
  }
  await rejectCursorBeyondHead(tail, since);
  const deadline = Date.now() + (read.wait ?? 0) * 1000;
  const handle = readerHandle(reader);
  const kept =
    feed.keepsPages === false
      ? undefined
      : `${feed.key}\n${since}\n${limit}\n${handle ?? ''}${typeof feed.keepsPages === 'string' ? `\n${feed.keepsPages}` : ''}`;
  let selection: FeedSelection | undefined;
  let held: HeldWait | undefined;
  try {
    for (;;) {
      const head = await tail.keyHead(feed.key);
      if (head > since) {
        const known = kept === undefined ? undefined : tail.pages.get(kept, head);
        if (known) return known;
        selection ??= { select: await feed.select(), drivenBy: feed.drivenBy };
        const redactions = tail.pages.redactions;
        const page = await readPage(store, selection, since, limit, handle);
        if (page.events.length > 0) {
          const answer = serialise(page);
          if (kept !== undefined) tail.pages.put(kept, page.events.length === limit ? 'full' : head, answer, redactions);
          return answer;
        }
      }
      // A node shutting down answers its long polls with what it has; so does one whose client has gone.
      if (Date.now() >= deadline || tail.isStopped || held?.signal.aborted === true) {
        return held?.signal.reason === 'reclaimed' ? { ...emptyPage(since), retryAfter: waits.retryAfterSeconds } : emptyPage(since);
      }
      held ??= waits.hold();
      // Over its share of long polls: answered as an ordinary poll would be, and asked to come back later.
      if (held === undefined) return { ...emptyPage(since), retryAfter: waits.retryAfterSeconds };
      // Whatever is at `head` was not for this reader (another member's direct message): wait for something newer.
      await tail.waitFor([feed.key], head, deadline, { signal: held.signal });
    }
  } finally {
    held?.release();
  }
}

/**
 * An empty page is fixed by `since` alone (no events, the same cursor), so its
 * tag can say so without hashing: tail polls are most of what feeds serve.
 * The prefix keeps it apart from the digests of pages with events.
 */
function emptyPage(since: number): FeedAnswer {
  const page: FeedPage = { events: [], cursor: since, protocol: PROTOCOL };
  return { page, body: Buffer.from(`{"events":[],"cursor":${since},"protocol":${JSON.stringify(PROTOCOL)}}`), etag: `W/"empty-${since}"` };
}

function serialise(page: FeedPage): FeedAnswer {
  const body = Buffer.from(JSON.stringify(page));
  // Weak: the same page may be sent compressed or not.
  return { page, body, etag: `W/"${createHash('sha1').update(body).digest('base64url')}"` };
}

/** The events of a feed this reader may see: audience-restricted ones only for their audience. */
function visibleEvents(store: EventStore, feed: FeedSelection, handle: string | null): EventQuery {
  return feed.select(feedEvents(store, feed.drivenBy)).where((eb) =>
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
  );
}

/** A feed as a page reads it: how to narrow the log, and the subject whose rows drive the read, if any. */
interface FeedSelection {
  select: (q: EventQuery) => EventQuery;
  drivenBy?: string | undefined;
}

/**
 * Where a page's rows come from: the log, or the driving subject's rows, each
 * with its event. With a subject, the subject's rows are the outer loop and
 * each event is looked up by its cursor, so a page costs its own rows on
 * either database. A plain join would not hold: the two cursors being equal,
 * PostgreSQL may still merge the subject's rows with the log walked from one
 * end, which, for a subject whose events lie far from that end, walks the log.
 */
function feedEvents(store: EventStore, drivenBy: string | undefined): EventQuery {
  const db = store.kysely;
  if (drivenBy === undefined) return db.selectFrom('events').selectAll('events');
  const subjectRows = db.selectFrom('event_subjects').where('event_subjects.subject', '=', drivenBy);
  if (store.dialect === 'sqlite') {
    // SQLite never reorders a CROSS JOIN: its left table stays the outer loop.
    return subjectRows.crossJoin('events').whereRef('events.cursor', '=', 'event_subjects.cursor').selectAll('events');
  }
  // A subquery with a limit is never merged into the join around it, so each
  // subject row fetches its one event by key and nothing can walk the log.
  return subjectRows
    .innerJoinLateral(
      (eb) => eb.selectFrom('events').selectAll('events').whereRef('events.cursor', '=', 'event_subjects.cursor').limit(1).as('events'),
      (join) => join.onTrue(),
    )
    .selectAll('events');
}

/**
 * The cursor a page is bounded and ordered by: with a driving subject, the
 * subject row's, so that the bound and the order fall on the key the read
 * walks. The event's cursor is equal, but a bound on it need not narrow the
 * subject rows walked: the walk could start from the subject's first row.
 */
function pageCursor(feed: FeedSelection) {
  return sql.ref<number>(feed.drivenBy === undefined ? 'events.cursor' : 'event_subjects.cursor');
}

/**
 * The rows of a page, each with the body of the message version its payload
 * leaves out, if any (stored-once.ts): an earlier version's from
 * `message_versions`, the current one's from `messages`.
 */
function withMessageBodies(store: EventStore, query: EventQuery) {
  const version = referencedVersion(store.dialect);
  return query
    .leftJoin('messages', (join) => join.on('messages.id', '=', referencedMessageId(store.dialect)))
    .leftJoin('message_versions', (join) => join.onRef('message_versions.message_id', '=', 'messages.id').on('message_versions.version', '=', version))
    .select(
      sql<string | null>`coalesce(message_versions.body, case when messages.version = ${version} and messages.deleted_ts is null then messages.body end)`.as(
        'message_body',
      ),
    );
}

async function readPage(store: EventStore, feed: FeedSelection, since: number, limit: number, handle: string | null): Promise<FeedPage> {
  const cursor = pageCursor(feed);
  const page = visibleEvents(store, feed, handle).where(cursor, '>', since).orderBy(cursor, 'asc').limit(limit);
  const rows = await withMessageBodies(store, page).execute();
  const events = rows.map(toEvent);
  return { events, cursor: events.length > 0 ? events[events.length - 1]!.cursor : since, protocol: PROTOCOL };
}

/**
 * The newest `count` events of a feed as of `head`, oldest first, with `head`
 * as the cursor: how a client starts following a long feed without reading it
 * from the beginning. Handing out `head` keeps the ordering promise: this node
 * has followed the log up to it, so every event at or below it is already
 * visible, and nothing the reader has not been shown can later appear below it.
 * Only events up to `head` are read, so one numbered meanwhile is not skipped.
 * With `before`, the newest below it: reading back from there needs no
 * promise, as everything below `head` is settled.
 */
async function readNewest(
  store: EventStore,
  feed: FeedSelection,
  head: number,
  newest: number,
  before: number | undefined,
  handle: string | null,
): Promise<FeedPage> {
  const cursor = pageCursor(feed);
  let query = visibleEvents(store, feed, handle).where(cursor, '<=', head);
  if (before !== undefined) query = query.where(cursor, '<', before);
  const rows = await withMessageBodies(store, query.orderBy(cursor, 'desc').limit(newest)).execute();
  return { events: rows.reverse().map(toEvent), cursor: head, protocol: PROTOCOL };
}

/**
 * A cursor beyond the newest event was never handed out by this host (another
 * host's cursor, or a reset database): an error, not a silently empty page that
 * would hide every event until the log caught up with it. This node's tail may
 * lag the log, so only a cursor beyond what the database holds is refused.
 */
async function rejectCursorBeyondHead(tail: EventTail, since: number): Promise<void> {
  if (since <= tail.head) return;
  const head = await tail.databaseHead();
  if (since > head) throw invalid('cursor_beyond_head', `since ${since} is beyond the newest event on this host`);
  await tail.announce(head);
}

/** The member an audience-restricted event may be shown to: an active member caller, nobody else. */
function readerHandle(reader: Actor | null): string | null {
  return reader?.kind === 'member' && reader.member.status === 'active' ? reader.member.handle : null;
}

export function toEvent(row: EventRow & { message_body: string | null }): AtriumEvent {
  return {
    cursor: Number(row.cursor),
    // Only `emit` writes the log, and it takes nothing but a declared type.
    type: row.type as EventType,
    space: row.space,
    actor: row.actor,
    subjects: JSON.parse(row.subjects) as string[],
    payload: emittedPayload(row.type, JSON.parse(row.payload) as Record<string, unknown>, row.message_body),
    created_ts: row.created_ts,
  };
}
