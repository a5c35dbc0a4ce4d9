import type { Static } from '@sinclair/typebox';
import type { EventObjectSchema, FeedPageObjectSchema } from './event-object.js';
import type { EventPayloads, EventVia } from './payloads.js';

export type { EventPayloads } from './payloads.js';

export type EventType = keyof EventPayloads;

/** Who caused an event: a member handle, or the steward key (actor null, `via`). */
export type EventActor = { handle: string } | { steward: true } | { system: Exclude<EventVia, 'steward_key'> };

export interface NewEvent<T extends EventType = EventType> {
  type: T;
  space: string | null;
  actor: EventActor;
  subjects: string[];
  payload: EventPayloads[T];
  /**
   * The only members who may read the event, in any feed (a direct message's
   * two participants). Omitted: everyone who may read the feed.
   */
  audience?: string[];
}

/** The wire shape of an event of any type (docs/protocol.md#the-event-object), as its schema declares it. */
export type AtriumEvent = Static<typeof EventObjectSchema>;

/** One page of a feed, as its schema declares it. */
export type FeedPage = Static<typeof FeedPageObjectSchema>;

/** A page as it is sent: the page, its JSON, and the entity tag of that JSON (for `If-None-Match`). */
export interface FeedAnswer {
  page: FeedPage;
  /** The page as sent: UTF-8 JSON, encoded once. */
  body: Buffer;
  etag: string;
  /** Set when the poll was not held as long as asked (over the caller's share, or the host took the connection back): seconds to wait before the next. */
  retryAfter?: number;
}
