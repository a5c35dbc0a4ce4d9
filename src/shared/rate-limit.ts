import { sql } from 'kysely';
import { AtriumError } from './errors.js';
import type { Tx } from '../storage/database.js';

/**
 * A sliding-window limit kept in the database, so several Atrium nodes on one
 * PostgreSQL share it. Counts the hits of `keyDigest` in `bucket` over the
 * window and refuses with 429 and Retry-After at `limit`; otherwise records
 * this hit in the caller's transaction (a refused or failed request leaves no
 * hit, unless the caller gives the limit a transaction of its own).
 */
export async function consumeRateLimit(
  tx: Tx,
  rule: { bucket: string; keyDigest: string; limit: number; windowMs: number; detail: string },
): Promise<void> {
  await serialiseOn(tx, `rate_limit:${rule.bucket}:${rule.keyDigest}`);
  const windowStart = new Date(tx.now.getTime() - rule.windowMs).toISOString();
  // Old hits are never needed again; dropping them here keeps the table small.
  await tx.db
    .deleteFrom('rate_limit_hits')
    .where('bucket', '=', rule.bucket)
    .where('key_hash', '=', rule.keyDigest)
    .where('hit_ts', '<=', windowStart)
    .execute();
  const recent = await tx.db
    .selectFrom('rate_limit_hits')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('bucket', '=', rule.bucket)
    .where('key_hash', '=', rule.keyDigest)
    .executeTakeFirstOrThrow();
  if (Number(recent.n) >= rule.limit) {
    throw new AtriumError('rate_limited', rule.detail, { 'retry-after': String(Math.ceil(rule.windowMs / 1000)) });
  }
  await tx.db.insertInto('rate_limit_hits').values({ bucket: rule.bucket, key_hash: rule.keyDigest, hit_ts: tx.now.toISOString() }).execute();
}

/**
 * Makes a count-then-write on `name` atomic across transactions and nodes.
 * Under PostgreSQL's READ COMMITTED, concurrent transactions would all count
 * the same rows and all pass; a transaction-scoped advisory lock on the name
 * queues them, and is released at commit or rollback. SQLite needs nothing:
 * its one connection runs one transaction at a time.
 */
export async function serialiseOn(tx: Tx, name: string): Promise<void> {
  if (tx.dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(tx.db);
}
