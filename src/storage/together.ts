import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Dialect } from './dialect.js';
import type { DatabaseSchema } from './schema.js';

/**
 * Writes a unit of work makes without reading back (`Tx.later`), sent just
 * before its events are queued.
 *
 * On PostgreSQL each statement of a transaction is a round trip, and on a
 * small machine the round trips, not the statements' work, are most of what
 * a write costs the node: every one is a system call that wakes a database
 * process and waits for it (a post spent about a third of its CPU writing to
 * the socket). So these writes and the statement after them go as one
 * statement, each write a data-modifying `WITH` part. PostgreSQL runs every
 * part exactly once, to completion, all on one snapshot: no part sees what
 * another wrote, which is why only writes nobody reads back may be sent this
 * way, and constraints are checked once the statement ends, as they would be
 * at the end of each statement sent alone.
 *
 * On SQLite a statement costs no round trip, and they run one after another.
 */
export async function executeAfter<R>(
  db: Kysely<DatabaseSchema>,
  dialect: Dialect,
  writes: readonly CompiledQuery[],
  last: CompiledQuery<R>,
): Promise<QueryResult<R>> {
  const executor = db.getExecutor();
  if (writes.length === 0) return executor.executeQuery(last);
  if (dialect === 'postgres') return executor.executeQuery(together(writes, last));
  for (const write of writes) await executor.executeQuery(write);
  return executor.executeQuery(last);
}

/** Sends writes made with `Tx.later` when no statement follows them. */
export async function executeWrites(db: Kysely<DatabaseSchema>, dialect: Dialect, writes: readonly CompiledQuery[]): Promise<void> {
  if (writes.length > 0) await executeAfter(db, dialect, writes.slice(0, -1), writes.at(-1)!);
}

/**
 * One PostgreSQL statement: each write a `WITH` part, then `last`, with the
 * parameters numbered on across the parts. The numbering is rewritten in the
 * SQL text, which is safe only where `$` can mean nothing but a parameter:
 * statements the query builder compiled with every value bound, so a part
 * holding a quoted literal is refused.
 */
export function together<R>(writes: readonly CompiledQuery[], last: CompiledQuery<R>): CompiledQuery<R> {
  const parameters: unknown[] = [];
  const renumbered = (query: CompiledQuery): string => {
    if (query.sql.includes("'")) throw new Error(`a statement sent with others holds a literal: ${query.sql}`);
    const offset = parameters.length;
    parameters.push(...query.parameters);
    return offset === 0 ? query.sql : query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  };
  const parts = writes.map((write, i) => `"write_${i}" as (${renumbered(write)})`).join(', ');
  const tail = renumbered(last);
  // A statement with parts of its own takes these first among them.
  const sql = /^with\s/i.test(tail) ? `with ${parts}, ${tail.replace(/^with\s+/i, '')}` : `with ${parts} ${tail}`;
  return { ...last, sql, parameters };
}
