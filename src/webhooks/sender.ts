import { sql, type Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { AddressPolicy } from '../egress/address-policy.js';
import { EgressFailed, EgressRefused, sendEgress, type EgressPool } from '../egress/request.js';
import type { Metrics } from '../observability/metrics.js';
import { chunks } from '../shared/chunks.js';
import type { Clock } from '../shared/clock.js';
import { serialiseOn } from '../shared/rate-limit.js';
import type { Database } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { Eligibility } from './eligibility.js';
import { nextAttemptDelayMs } from './retry.js';
import { signatureHeader, type SigningKey } from './signing-keys.js';
import type { WebhookAttemptTable } from './tables.js';

/** A receiver's answer is read up to this size and otherwise ignored. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Beyond the attempt's own time limit: how long a claim outlives a sender that died mid-attempt. */
const LEASE_MARGIN_MS = 5_000;

/** What an attempt needs of the service: it touches no database. */
export interface AttemptDeps {
  config: Pick<Config, 'webhookTimeoutMs' | 'webhookRetrySchedule'>;
  egress: AddressPolicy;
  clock: Clock;
  /** Connections kept between attempts to the same origin (docs/webhooks.md, "Connections"); none: one per attempt. */
  connections?: EgressPool;
}

/** What recording finished attempts needs of the service. */
export interface RecordDeps {
  db: Database;
  metrics: Metrics;
}

export interface Claimed {
  id: string;
  subscription_id: string;
  range_after: number;
  range_through: number;
  body: string;
  attempts: number;
  run_start: number;
  lease_until: string;
  scope: 'space_events' | 'inbox_events';
  space: string | null;
  owner_member: string;
  endpoint_id: string;
  url: string;
}

export type AttemptOutcome = 'delivered' | 'failed' | 'dead' | 'gone';

/** How many attempts may be on the wire at once, all nodes together (docs/webhooks.md, "Fair sending"). */
export interface SendCaps {
  perEndpoint: number;
  perMember: number;
}

/**
 * Claims due deliveries for this node: pending, due, not held by a live
 * claim, of an active subscription on an active endpoint (the rest wait),
 * at most `room`, and fairly:
 *
 * - An endpoint never has more than `caps.perEndpoint` attempts in flight,
 *   nor a member's subscriptions together more than `caps.perMember`. In
 *   flight means under a live lease on any node, or on the wire from this
 *   node (`onTheWire`: an attempt whose delivery was cancelled meanwhile has
 *   no lease left to count, but still holds its connection). What a cap holds
 *   back stays due and is claimed when an attempt ends, never failed.
 * - Members take turns: each member's k-th delivery in line ranks k plus
 *   what it already has in flight, so the member with the fewest attempts in
 *   flight goes first, and one member's backlog cannot push others' wakes
 *   behind it. Within a member, the oldest due goes first.
 *
 * On PostgreSQL, claims are taken one node at a time (an advisory lock held
 * to the commit), so two nodes cannot both count the same free place under a
 * cap; SKIP LOCKED still passes over rows a recording or a deletion holds.
 * The lease makes a claim expire if its node dies.
 */
export async function claimDue(
  db: Database,
  now: Date,
  timeoutMs: number,
  room: number,
  caps: SendCaps,
  onTheWire: readonly string[] = [],
): Promise<Claimed[]> {
  if (room <= 0) return [];
  return db.transaction(async (tx) => {
    await serialiseOn(tx, 'webhook_claim');
    const ts = now.toISOString();
    const leased = tx.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
      .select(['d.id', 's.owner_member', 's.endpoint_id'])
      .where('d.status', '=', 'pending')
      .where('d.lease_until', '>', ts);
    const busy =
      onTheWire.length === 0
        ? leased
        : leased.union(
            tx.db
              .selectFrom('webhook_deliveries as d')
              .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
              .select(['d.id', 's.owner_member', 's.endpoint_id'])
              .where('d.id', 'in', [...onTheWire]),
          );
    // Joins in the order written below: from the due deliveries to their subscriptions and endpoints.
    // Left to itself, a planner without statistics on these tables (a new host, before autovacuum's
    // first look) started from the endpoints and scanned every due delivery once per subscription.
    if (tx.dialect === 'postgres') await sql`set local join_collapse_limit = 1`.execute(tx.db);
    const ids = (
      await tx.db
        // Due deliveries first, on their own, from the partial index of pending ones; subscriptions and
        // endpoints are then joined to them by key. Without it, that planner rescanned the index once per
        // subscription: about 90 ms a claim with a thousand due.
        .with(
          (cte) => cte('pending').materialized(),
          (q) =>
            q
              .selectFrom('webhook_deliveries as d')
              .select(['d.id', 'd.subscription_id', 'd.next_attempt_ts'])
              .where('d.status', '=', 'pending')
              .where('d.next_attempt_ts', '<=', ts)
              .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<=', ts)])),
        )
        .with('busy', () => busy)
        .with('endpoint_busy', (q) => q.selectFrom('busy').select((eb) => ['endpoint_id', eb.fn.countAll<number>().as('n')]).groupBy('endpoint_id'))
        .with('member_busy', (q) => q.selectFrom('busy').select((eb) => ['owner_member', eb.fn.countAll<number>().as('n')]).groupBy('owner_member'))
        .with('due', (q) =>
          q
            .selectFrom('pending as d')
            .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
            .innerJoin('webhook_endpoints as e', 'e.id', 's.endpoint_id')
            .select((eb) => [
              'd.id',
              'd.next_attempt_ts',
              's.owner_member',
              's.endpoint_id',
              eb.fn.agg<number>('row_number').over((ob) => ob.partitionBy('s.endpoint_id').orderBy('d.next_attempt_ts').orderBy('d.id')).as('endpoint_rank'),
            ])
            .where('s.status', '=', 'active')
            .where('s.deleted_ts', 'is', null)
            .where('e.status', '=', 'active')
            .where('e.deleted_ts', 'is', null),
        )
        // Ranked per member only among what fits under its endpoints' caps, so a full endpoint does not use up its member's turns.
        .with('fits', (q) =>
          q
            .selectFrom('due')
            .leftJoin('endpoint_busy as b', 'b.endpoint_id', 'due.endpoint_id')
            .select((eb) => [
              'due.id',
              'due.next_attempt_ts',
              'due.owner_member',
              eb.fn.agg<number>('row_number').over((ob) => ob.partitionBy('due.owner_member').orderBy('due.next_attempt_ts').orderBy('due.id')).as('member_rank'),
            ])
            .where(sql<number>`due.endpoint_rank + coalesce(b.n, 0)`, '<=', caps.perEndpoint),
        )
        .selectFrom('fits')
        .leftJoin('member_busy as b', 'b.owner_member', 'fits.owner_member')
        .select('fits.id')
        .where(sql<number>`fits.member_rank + coalesce(b.n, 0)`, '<=', caps.perMember)
        .orderBy(sql`fits.member_rank + coalesce(b.n, 0)`)
        .orderBy('fits.next_attempt_ts')
        .orderBy('fits.id')
        .limit(room)
        .execute()
    ).map((row) => row.id);
    if (ids.length === 0) return [];
    // Read before the lock, so taken again under it: a recording or a deletion may have changed a row meanwhile.
    const lock = tx.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('id', 'in', ids)
      .where('status', '=', 'pending')
      .where('next_attempt_ts', '<=', ts)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', ts)]));
    const taken = new Set((await (tx.dialect === 'postgres' ? lock.forUpdate().skipLocked() : lock).execute()).map((row) => row.id));
    const claimed = ids.filter((id) => taken.has(id));
    if (claimed.length === 0) return [];
    const lease = new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS).toISOString();
    await tx.db.updateTable('webhook_deliveries').set({ lease_until: lease }).where('id', 'in', claimed).execute();
    const rows = await tx.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
      .innerJoin('webhook_endpoints as e', 'e.id', 's.endpoint_id')
      .select(['d.id', 'd.subscription_id', 'd.range_after', 'd.range_through', 'd.body', 'd.attempts', 'd.run_start', 's.scope', 's.space', 's.owner_member', 's.endpoint_id', 'e.url'])
      .where('d.id', 'in', claimed)
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    // In turn order: the first claimed go out first.
    return claimed.map((id) => {
      const row = byId.get(id)!;
      return { ...row, range_after: Number(row.range_after), range_through: Number(row.range_through), lease_until: lease };
    });
  });
}

/**
 * What may no longer be sent at all, decided when the attempt is due
 * (docs/webhooks.md, "What stops sends"): the owner is suspended, the Space
 * is archived or the owner lost the right to act there, or an inbox range
 * holds no entry from an active Space the owner can still read. Returns the
 * reason per cancelled delivery.
 */
export async function cancellations(db: Kysely<DatabaseSchema>, claimed: readonly Claimed[]): Promise<Map<string, string>> {
  const reasons = new Map<string, string>();
  if (claimed.length === 0) return reasons;
  const slugs = [...new Set(claimed.flatMap((d) => (d.space === null ? [] : [d.space])))];
  const spaces = slugs.length > 0 ? await db.selectFrom('spaces').select(['slug', 'join_policy', 'status']).where('slug', 'in', slugs).execute() : [];
  const bySlug = new Map(spaces.map((s) => [s.slug, s]));
  const eligibility = await Eligibility.load(db, claimed.map((d) => d.owner_member), slugs);
  for (const delivery of claimed) {
    if (!eligibility.isActive(delivery.owner_member)) {
      reasons.set(delivery.id, `the owner ${delivery.owner_member} may not be sent anything now (not an active member)`);
    } else if (delivery.scope === 'space_events') {
      const space = bySlug.get(delivery.space!)!;
      if (space.status === 'archived') reasons.set(delivery.id, `Space ${space.slug} is archived`);
      else if (!eligibility.mayAct(delivery.owner_member, space)) reasons.set(delivery.id, `the owner lost access to Space ${space.slug}`);
    } else if (!(await inboxRangeStillCounts(db, delivery))) {
      reasons.set(delivery.id, 'no entry in the range is from an active Space the owner can read');
    }
  }
  return reasons;
}

async function inboxRangeStillCounts(db: Kysely<DatabaseSchema>, delivery: Claimed): Promise<boolean> {
  const rows = await db
    .selectFrom('event_subjects as es')
    .innerJoin('events as ev', 'ev.cursor', 'es.cursor')
    .innerJoin('spaces as sp', 'sp.slug', 'ev.space')
    .select(['sp.slug', 'sp.join_policy'])
    .distinct()
    .where('es.subject', '=', `member:mentioned:${delivery.owner_member}`)
    .where('es.cursor', '>', delivery.range_after)
    .where('es.cursor', '<=', delivery.range_through)
    .where('sp.status', '=', 'active')
    .execute();
  if (rows.length === 0) return false;
  const eligibility = await Eligibility.load(db, [delivery.owner_member], rows.map((r) => r.slug));
  return rows.some((space) => eligibility.mayRead(delivery.owner_member, space));
}

/** One attempt's result, to be recorded with others in one transaction (recordAttempts): its row, and what follows from it. */
export type AttemptRecord = Omit<WebhookAttemptTable, 'delivery_id'> & {
  delivery: Claimed;
  outcome: AttemptOutcome;
  /** When the next attempt is due (a failed one with attempts left); otherwise null. */
  next_attempt_ts: string | null;
};

/**
 * Makes one attempt: signs the stored body afresh (a new timestamp, the key
 * active when it was claimed) and sends it. Touches no database: the caller records the result.
 */
export async function attempt(ctx: AttemptDeps, delivery: Claimed, key: SigningKey): Promise<AttemptRecord> {
  const started = ctx.clock.now();
  const timestamp = Math.floor(started.getTime() / 1000);
  let status: number | null = null;
  let error: string | null = null;
  let retryAfter: string | undefined;
  const t0 = performance.now();
  try {
    const answer = await sendEgress(
      {
        url: delivery.url,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Atrium-Webhooks/1',
          'webhook-id': delivery.id,
          'webhook-key-id': key.kid,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(key, timestamp, delivery.body),
        },
        body: delivery.body,
      },
      ctx.egress,
      { timeoutMs: ctx.config.webhookTimeoutMs, maxResponseBytes: MAX_ANSWER_BYTES },
      undefined,
      ctx.connections,
    );
    status = answer.status;
    const header = answer.headers['retry-after'];
    retryAfter = Array.isArray(header) ? header[0] : header;
    if (status < 200 || status >= 300) error = `the receiver answered ${status}`;
  } catch (err) {
    if (!(err instanceof EgressRefused || err instanceof EgressFailed)) throw err;
    error = err.reason;
  }
  const made = delivery.attempts + 1;
  const inRun = made - delivery.run_start;
  const outcome: AttemptOutcome = error === null ? 'delivered' : status === 410 ? 'gone' : inRun > ctx.config.webhookRetrySchedule.length ? 'dead' : 'failed';
  const finished = ctx.clock.now();
  return {
    delivery,
    outcome,
    attempt: made,
    started_ts: started.toISOString(),
    duration_ms: Math.max(0, Math.round(performance.now() - t0)),
    response_status: status,
    error,
    next_attempt_ts:
      outcome === 'failed' ? new Date(finished.getTime() + nextAttemptDelayMs(ctx.config.webhookRetrySchedule, inRun, retryAfter, finished)).toISOString() : null,
  };
}

/**
 * Records finished attempts and what follows from each, all in one
 * transaction: a thousand wakes of one event cost a few statements, not a
 * thousand transactions.
 */
export async function recordAttempts(ctx: RecordDeps, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  await ctx.db.transaction(async (tx) => {
    const ts = tx.now.toISOString();
    for (const chunk of chunks(records)) {
      await tx.db
        .insertInto('webhook_attempts')
        .values(chunk.map((r) => ({ delivery_id: r.delivery.id, attempt: r.attempt, started_ts: r.started_ts, duration_ms: r.duration_ms, response_status: r.response_status, error: r.error })))
        .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
        .execute();
    }
    const finished = records.filter((r) => r.outcome !== 'failed');
    for (const status of ['delivered', 'dead'] as const) {
      const ids = finished.filter((r) => (status === 'delivered') === (r.outcome === 'delivered')).map((r) => r.delivery.id);
      for (const chunk of chunks(ids)) {
        await tx.db
          .updateTable('webhook_deliveries')
          .set((eb) => ({ attempts: eb('attempts', '+', 1), status, next_attempt_ts: null, lease_until: null, updated_ts: ts }))
          .where('id', 'in', chunk)
          // Deleted (cancelled) while the attempt was out: the attempt is history, the status stays.
          .where('status', '=', 'pending')
          .execute();
      }
    }
    for (const r of records.filter((r) => r.outcome === 'failed')) {
      await tx.db
        .updateTable('webhook_deliveries')
        .set({ attempts: r.attempt, next_attempt_ts: r.next_attempt_ts, lease_until: null, updated_ts: ts })
        .where('id', '=', r.delivery.id)
        .where('status', '=', 'pending')
        .execute();
    }
    // A 410 says the receiver is gone for good: nothing more goes there until it is verified again.
    const gone = [...new Set(records.filter((r) => r.outcome === 'gone').map((r) => r.delivery.endpoint_id))];
    if (gone.length > 0) await tx.db.updateTable('webhook_endpoints').set({ status: 'disabled' }).where('id', 'in', gone).where('status', '=', 'active').execute();
  });
  for (const r of records) ctx.metrics.webhookAttempt(r.outcome);
}


/** Marks claimed deliveries that may no longer be sent as cancelled, with no attempt made. */
export async function cancel(db: Database, reasons: Map<string, string>, metrics: Metrics): Promise<void> {
  if (reasons.size === 0) return;
  await db.transaction(async (tx) => {
    await tx.db
      .updateTable('webhook_deliveries')
      .set({ status: 'cancelled', next_attempt_ts: null, lease_until: null, updated_ts: tx.now.toISOString() })
      .where('id', 'in', [...reasons.keys()])
      .where('status', '=', 'pending')
      .execute();
  });
  metrics.webhookCancelled(reasons.size);
}
