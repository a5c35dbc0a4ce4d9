import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * PostgreSQL: the ids the search backfill gives the documents of older
 * records, each below the last (src/search/index-writes.ts, `DocumentIds`).
 * Several nodes may walk at once, messages on one and tasks on another, so
 * the ids come from a sequence rather than from the lowest id there is, as
 * on SQLite, whose one writer reads that inside the batch's transaction.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create sequence search_backfill_document_ids increment by -1 start with -1 maxvalue -1`.execute(db);
}
