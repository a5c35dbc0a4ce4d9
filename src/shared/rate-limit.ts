import { AtriumError } from './errors.js';
import { hashSecret } from './secrets.js';
import type { Tx } from '../storage/database.js';

export interface RateLimitTable {
  bucket: string;
  /** SHA-256 of the key (a client address): counting needs no raw address at rest. */
  key_hash: string;
  hit_ts: string;
}

export interface RateLimitsTables {
  rate_limit_hits: RateLimitTable;
}

/**
 * A sliding-window limit kept in the database, so several Atrium nodes on one
 * PostgreSQL share it. Counts the hits of `key` in `bucket` over the window and
 * refuses with 429 and Retry-After at `limit`; otherwise records this hit in
 * the caller's transaction (a refused or failed request leaves no hit).
 */
export async function consumeRateLimit(
  tx: Tx,
  rule: { bucket: string; key: string; limit: number; windowMs: number; detail: string },
): Promise<void> {
  const keyHash = hashSecret(rule.key);
  const windowStart = new Date(tx.now.getTime() - rule.windowMs).toISOString();
  // Old hits are never needed again; dropping them here keeps the table small.
  await tx.db.deleteFrom('rate_limit_hits').where('bucket', '=', rule.bucket).where('hit_ts', '<=', windowStart).execute();
  const recent = await tx.db
    .selectFrom('rate_limit_hits')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('bucket', '=', rule.bucket)
    .where('key_hash', '=', keyHash)
    .executeTakeFirstOrThrow();
  if (Number(recent.n) >= rule.limit) {
    throw new AtriumError(429, rule.detail, { 'retry-after': String(Math.ceil(rule.windowMs / 1000)) });
  }
  await tx.db.insertInto('rate_limit_hits').values({ bucket: rule.bucket, key_hash: keyHash, hit_ts: tx.now.toISOString() }).execute();
}
