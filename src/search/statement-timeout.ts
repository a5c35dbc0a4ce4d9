import { sql, type Kysely } from 'kysely';
import { AtriumError } from '../shared/errors.js';
import type { Database } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * How long PostgreSQL may spend on one search statement. A search's work is
 * bounded by what it ranks (docs/search.md, "Costs"), but its plan is
 * PostgreSQL's choice and rests on the tables' statistics, which a new host or
 * one with autovacuum off may lack; a plan gone wrong then costs one refused
 * search rather than a connection held for seconds.
 */
export const SEARCH_STATEMENT_TIMEOUT_MS = 2000;

/** PostgreSQL's `query_canceled`, which a statement timeout raises. */
const QUERY_CANCELED = '57014';

/**
 * Runs a search's statements under SEARCH_STATEMENT_TIMEOUT_MS on PostgreSQL
 * (`SET LOCAL`, so it ends with the transaction and never stays on a pooled
 * connection); one that runs out is `search_too_broad`, a 422, as no query may
 * answer 5xx. SQLite has no statement timeout: there the bound on ranked
 * matches is what bounds a search.
 */
export async function withSearchTimeout<T>(db: Database, run: (db: Kysely<DatabaseSchema>) => Promise<T>, timeoutMs = SEARCH_STATEMENT_TIMEOUT_MS): Promise<T> {
  if (db.dialect !== 'postgres') return run(db.kysely);
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      await sql`set local statement_timeout = ${sql.lit(timeoutMs)}`.execute(trx);
      return run(trx);
    });
  } catch (err) {
    if ((err as { code?: unknown }).code === QUERY_CANCELED) {
      throw new AtriumError('search_too_broad', 'the search took longer than this host allows; narrow it with more words, or with operators such as in:, from: or after:');
    }
    throw err;
  }
}
