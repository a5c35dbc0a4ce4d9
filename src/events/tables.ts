import type { Generated } from 'kysely';

/** The durable event log (protocol: Events). See docs/events.md for how cursors are assigned. */
export interface EventTable {
  /** Given at insert on SQLite, by the sequencer on PostgreSQL (never by a sequence default). */
  cursor: Generated<number>;
  type: string;
  space: string | null;
  actor: string | null;
  /** JSON array of subject strings. */
  subjects: string;
  /** JSON object. */
  payload: string;
  created_ts: string;
  /**
   * NULL: every reader of the feed may see the event. Otherwise a JSON array of
   * the only members who may (a direct message's two participants), each also
   * in `event_audience` for the feed query (docs/messages.md).
   */
  audience: string | null;
}

/** One row per (event, subject), so feeds can select by subject with an index. */
export interface EventSubjectTable {
  subject: string;
  cursor: number;
}

/** One row per member an audience-restricted event is visible to. */
export interface EventAudienceTable {
  cursor: number;
  member: string;
}

/**
 * PostgreSQL: events a committed transaction emitted, not yet numbered. The
 * sequencer moves them into `events` in one transaction per batch (docs/events.md).
 */
export type PendingEventTable = Omit<EventTable, 'cursor'> & { id: Generated<number> };

export interface EventsTables {
  events: EventTable;
  pending_events: PendingEventTable;
  event_subjects: EventSubjectTable;
  event_audience: EventAudienceTable;
}
