import type { Generated } from 'kysely';

/** The durable event log (decisions §7). See docs/events.md for how cursors are assigned. */
export interface EventTable {
  cursor: Generated<number>;
  type: string;
  space: string | null;
  actor: string | null;
  /** JSON array of subject strings. */
  subjects: string;
  /** JSON object. */
  payload: string;
  created_ts: string;
}

/** One row per (event, subject), so feeds can select by subject with an index. */
export interface EventSubjectTable {
  subject: string;
  cursor: number;
}

export interface EventsTables {
  events: EventTable;
  event_subjects: EventSubjectTable;
}
