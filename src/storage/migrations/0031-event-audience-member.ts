import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * `event_audience` by member (docs/operations.md, "Costs as data grows").
 *
 * A member reading a feed sees an event with an audience only if they are in
 * it. The table was keyed by event, then member, which serves a check of one
 * event at a time; PostgreSQL's planner prefers to gather the reader's
 * audience rows once and test each event against them, and without an index
 * by member that read every direct message's audience on the host: on every
 * feed page a member read, a cost that grew with the log (3.4 ms of a 4.5 ms
 * page at a million events with 2% direct messages). SQLite keeps checking
 * event by event; it gets the index too, so both databases hold one schema.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('event_audience_member_idx').on('event_audience').columns(['member', 'cursor']).execute();
}
