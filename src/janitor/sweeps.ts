import { sql, type RawBuilder } from 'kysely';
import { REGISTRATION_UNUSED_MS } from '../oauth/clients.js';
import { IDEMPOTENCY_KEY_TTL_MS } from '../shared/idempotency-keys.js';
import type { Tx } from '../storage/database.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * How long a record is kept after it stopped counting for anything: sign-in
 * and activation codes, sessions and OAuth tokens are refused from their
 * expiry on, and a day later nothing reads them, not even to say why a
 * request was refused.
 */
const AFTER_EXPIRY_MS = DAY_MS;
/** Rate-limit windows are an hour at most; a hit older than a day counts in none. */
const RATE_LIMIT_KEPT_MS = DAY_MS;
/** A blob no Resource version names is removed only after this long, so one written with its version in a unit still running is never taken. */
const ORPHAN_BLOB_GRACE_MS = DAY_MS;
/** Each subscription's delivery history keeps its newest this many, however old (docs/webhooks.md). */
export const DELIVERIES_KEPT_PER_SUBSCRIPTION = 100;

export interface SweepSettings {
  webhookDeliveryRetentionDays: number;
}

/**
 * One kind of record the janitor removes once it has expired
 * (docs/operations.md, "Growth"): `batch` removes at most `limit` of them in
 * the caller's transaction and answers how many it removed.
 */
export interface Sweep {
  /** The table, as metrics and the operator's page name it. */
  table: string;
  batch(tx: Tx, now: Date, limit: number, settings: SweepSettings): Promise<number>;
}

const before = (now: Date, ms: number) => new Date(now.getTime() - ms).toISOString();

/**
 * Deletes up to `limit` rows of `table` matching `expired`, by the row's own
 * address (SQLite's rowid, PostgreSQL's ctid), so tables without a key of
 * their own (rate-limit hits) are swept the same way, in one statement.
 */
async function deleteSome(tx: Tx, table: string, expired: RawBuilder<unknown>, limit: number): Promise<number> {
  const row = sql.raw(tx.dialect === 'postgres' ? 'ctid' : 'rowid');
  const name = sql.table(table);
  const result = await sql`delete from ${name} where ${row} in (select ${row} from ${name} where ${expired} limit ${limit})`.execute(tx.db);
  return Number(result.numAffectedRows ?? 0);
}

export const SWEEPS: readonly Sweep[] = [
  {
    table: 'sessions',
    // A revoked session is refused at once and goes with its expiry, as every other.
    batch: (tx, now, limit) => deleteSome(tx, 'sessions', sql`expires_ts <= ${before(now, AFTER_EXPIRY_MS)}`, limit),
  },
  { table: 'sign_in_codes', batch: (tx, now, limit) => deleteSome(tx, 'sign_in_codes', sql`expires_ts <= ${before(now, AFTER_EXPIRY_MS)}`, limit) },
  { table: 'client_activations', batch: (tx, now, limit) => deleteSome(tx, 'client_activations', sql`expires_ts <= ${before(now, AFTER_EXPIRY_MS)}`, limit) },
  { table: 'idempotency_keys', batch: (tx, now, limit) => deleteSome(tx, 'idempotency_keys', sql`created_ts <= ${before(now, IDEMPOTENCY_KEY_TTL_MS)}`, limit) },
  { table: 'rate_limit_hits', batch: (tx, now, limit) => deleteSome(tx, 'rate_limit_hits', sql`hit_ts <= ${before(now, RATE_LIMIT_KEPT_MS)}`, limit) },
  {
    table: 'oauth_authorization_requests',
    batch: (tx, now, limit) => deleteSome(tx, 'oauth_authorization_requests', sql`expires_ts <= ${before(now, AFTER_EXPIRY_MS)}`, limit),
  },
  { table: 'oauth_tokens', batch: (tx, now, limit) => deleteSome(tx, 'oauth_tokens', sql`expires_ts <= ${before(now, AFTER_EXPIRY_MS)}`, limit) },
  {
    table: 'oauth_clients',
    batch: (tx, now, limit) => deleteSome(tx, 'oauth_clients', sql`kind = 'registered' and last_used_ts <= ${before(now, REGISTRATION_UNUSED_MS)}`, limit),
  },
  {
    table: 'webhook_deliveries',
    batch: async (tx, now, limit, settings) => {
      const cutoff = before(now, settings.webhookDeliveryRetentionDays * DAY_MS);
      // Finished long enough ago, and not among its subscription's newest (the history a member reads): a
      // hundred newer ones exist, found in the index on (subscription, created) without counting them all.
      const ids = (
        await tx.db
          .selectFrom('webhook_deliveries as d')
          .select('d.id')
          .where('d.status', '!=', 'pending')
          .where('d.updated_ts', '<=', cutoff)
          .where(({ exists, selectFrom }) =>
            exists(
              selectFrom('webhook_deliveries as n')
                .select('n.id')
                .whereRef('n.subscription_id', '=', 'd.subscription_id')
                .whereRef('n.created_ts', '>', 'd.created_ts')
                .limit(1)
                .offset(DELIVERIES_KEPT_PER_SUBSCRIPTION - 1),
            ),
          )
          .limit(limit)
          .execute()
      ).map((row) => row.id);
      if (ids.length === 0) return 0;
      await tx.db.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).execute();
      await tx.db.deleteFrom('webhook_deliveries').where('id', 'in', ids).where('status', '!=', 'pending').execute();
      return ids.length;
    },
  },
  // A node's readings for the operator's page, which shows the last half hour (src/operator/).
  { table: 'operator_samples', batch: (tx, now, limit) => deleteSome(tx, 'operator_samples', sql`ts <= ${before(now, DAY_MS)}`, limit) },
  {
    table: 'blobs',
    batch: (tx, now, limit) =>
      deleteSome(tx, 'blobs', sql`created_ts <= ${before(now, ORPHAN_BLOB_GRACE_MS)} and not exists (select 1 from resource_versions v where v.digest = blobs.digest)`, limit),
  },
];
