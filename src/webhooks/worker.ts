import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EventLog } from '../events/log.js';
import { RepeatedFailure } from '../logger.js';
import { feedKeys } from '../events/tail.js';
import type { Database } from '../storage/database.js';
import type { WebhookDispatch } from './dispatch.js';
import { nextOwedDue, project, PROJECTION_BATCH } from './projector.js';
import { attempt, cancel, cancellations, claimDue, recordAttempts, type AttemptDeps, type AttemptRecord, type RecordDeps, type SendCaps } from './sender.js';
import type { WebhookSigningKeys } from './signing-keys.js';
import { EgressPool } from '../egress/request.js';

/**
 * Longest sleep between looks at the queue when nothing local wakes the
 * worker: picks up claims a dead node left (their leases expire) and work
 * another node queued for a time this one could not know of.
 */
const IDLE_LOOK_MS = 2_000;
/**
 * Attempts one node has on the wire at once. Each runs on its own, so one
 * slow receiver holds one slot for its time limit, never the whole queue;
 * the caps per endpoint and per member (claimDue) keep a few members' hung
 * receivers from holding them all. A post that wakes a thousand
 * subscriptions is sent in rounds of this many, each a claim, the sends and
 * their recording: at 64, the last of a thousand wakes arrived 1.2 s (PostgreSQL)
 * to 2.5 s (SQLite) after the post on two cores, at 256 in 0.4 to 0.8 s. An
 * attempt on the wire costs a socket and a few kilobytes.
 */
const SEND_CONCURRENCY = 256;
/**
 * Shortest time between two passes started by commits alone. Every node's
 * worker follows every commit; without a floor, a steady stream of writes
 * keeps each one projecting, claiming and reading due times back to back,
 * an extra database client as busy as the writers themselves. Wakes are
 * debounced anyway (1 s by default), so gathering 50 ms of commits per pass
 * costs a debounce-0 subscriber at most that much, and a kick (a resume, a
 * replay, finished attempts) still starts a pass at once.
 */
const MIN_PASS_GAP_MS = 50;
/**
 * Free slots worth a claim of their own, at the least. A claim ranks every due
 * delivery for fairness (sender.ts), a few milliseconds with a thousand due.
 * Claimed one slot at a time, as each attempt ended, a post to a thousand
 * subscribers cost two claims a wake: with the receiver slowed by the same
 * event loop, eleven seconds on SQLite, against one second claiming 32 at a
 * time. So an ending attempt starts the next pass at once only when enough
 * slots are free (claimBatch); otherwise the next pass waits out
 * MIN_PASS_GAP_MS, and the slots freed meanwhile are claimed together. A slow
 * receiver still holds only its own slot: what it holds back waits at most
 * that gap.
 */
const CLAIM_BATCH = 32;
/** A claim this quick is cheap enough to make for every CLAIM_BATCH freed slots. */
const CHEAP_CLAIM_MS = 2;
/** Claims for fewer slots than a batch wait this many times a claim's cost since the last (worthClaiming). */
const CLAIM_TIME_SHARE = 10;

/**
 * Freed slots that start a claim, given what claims have lately cost. A
 * claim's cost grows with the deliveries due, and a fan-out to N
 * subscriptions makes N / batch claims: at a fixed 32, ten thousand due made
 * each claim about 15 ms and three hundred of them, three quarters of the
 * node's CPU and a p50 of 9 s. Growing the batch with the cost keeps claims a
 * bounded share of the sender's time, up to half the slots, so the other half
 * stays on the wire while a claim runs.
 */
export function claimBatch(claimMs: number): number {
  const scaled = Math.round((CLAIM_BATCH * claimMs) / CHEAP_CLAIM_MS);
  return Math.min(SEND_CONCURRENCY / 2, Math.max(CLAIM_BATCH, scaled));
}

/** What the worker needs of the service: its attempts' needs, and the queue, the keys and the tail it wakes by. */
export interface WebhookWorkerDeps extends AttemptDeps, RecordDeps {
  config: AttemptDeps['config'] & Pick<Config, 'baseUrl' | 'webhookConcurrencyPerEndpoint' | 'webhookConcurrencyPerMember'>;
  db: Database;
  webhookKeys: Pick<WebhookSigningKeys, 'active'>;
  log: Logger;
  events: Pick<EventLog, 'tail'>;
}

/**
 * Every serving node runs one (docs/webhooks.md, "Delivery"). It wakes
 * through the event tail whenever events commit (on any node), projects them
 * into owed wakes, builds the due ones, and sends what is due, and otherwise
 * sleeps until the soonest debounce window or retry falls due. Nodes share
 * the work through the database (projection lock, SKIP LOCKED claims with
 * leases); SQLite runs the same loop in its one process.
 */
export class WebhookWorker implements WebhookDispatch {
  private running = false;
  private loop: Promise<void> | undefined;
  private kicked = false;
  /** Ended attempts freed slots worth a claim (claimSoon): claimed without waiting for the next pass. */
  private freed = false;
  /** Ended attempts freed a few slots: look again after the pass gap (nudge). */
  private nudged = false;
  /** In `sleep` (not in the pass gap, which a nudge must not cut short). */
  private sleeping = false;
  private interrupt: AbortController | undefined;
  private readonly issuer: string;
  private readonly sending = new Set<Promise<void>>();
  /** The deliveries of the attempts in `sending`: they count against their caps until they end, whatever became of the delivery. */
  private readonly onTheWire = new Set<string>();
  /**
   * When the last claim looked. What was due by then and not claimed waits
   * for a free place under its caps or a free slot, which only an ending
   * attempt makes (and its recording kicks the loop); counting it as due
   * would spin the loop until then.
   */
  private lastClaim = new Date(0);
  /** What claims have lately taken, in ms, smoothed (claimBatch). Real time: it measures cost, not the protocol's clock. */
  private claimMs = 0;
  /** When the last claim ended (performance.now()). */
  private claimedAt = 0;
  /** A claim put off as not yet worth its cost (worthClaiming): when it will be (performance.now()). */
  private claimWorthAt: number | undefined;
  private finished: AttemptRecord[] = [];
  private recording: Promise<void> | undefined;
  private lastPass = 0;
  /**
   * Connections kept between attempts, per origin, each pinned to the address
   * judged when it was made (docs/webhooks.md, "Connections"): a fan-out to
   * many subscriptions of one receiver no longer opens a connection (and
   * resolves the name) per wake.
   */
  private readonly connections = new EgressPool();
  private readonly attemptDeps: AttemptDeps;
  /** Each of the loop's failures logged once until it changes (RepeatedFailure). */
  private readonly failures: Record<'attempt' | 'claim' | 'cycle' | 'due', RepeatedFailure>;

  constructor(private readonly ctx: WebhookWorkerDeps) {
    this.failures = { attempt: new RepeatedFailure(ctx.log), claim: new RepeatedFailure(ctx.log), cycle: new RepeatedFailure(ctx.log), due: new RepeatedFailure(ctx.log) };
    this.issuer = ctx.config.baseUrl.replace(/\/+$/, '');
    this.attemptDeps = { ...ctx, connections: this.connections };
    ctx.metrics.gauge('atrium_webhook_queue_depth', 'Webhook deliveries pending (to send or to retry) on this host.', () => webhookQueueDepth(ctx.db));
    ctx.metrics.gauge('atrium_webhook_oldest_owed_seconds', 'Age of the oldest wake owed and not yet delivered on this host (0 when none).', () =>
      oldestOwedSeconds(ctx.db, ctx.clock.now()),
    );
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.interrupt?.abort();
    await this.loop;
    // Attempts on the wire end within their time limit; their outcomes are still recorded.
    await Promise.allSettled([...this.sending]);
    this.connections.destroy();
  }

  kick(): void {
    this.kicked = true;
    this.interrupt?.abort();
  }

  /** A pass soon, but no sooner than MIN_PASS_GAP_MS after the last: wakes a sleeping loop without skipping the gap. */
  private nudge(): void {
    if (this.kicked) return;
    this.nudged = true;
    if (this.sleeping) this.interrupt?.abort();
  }

  /**
   * Ended attempts freed slots worth a claim (claimBatch): claim at once,
   * without a pass. A pass also projects, reading and rewriting every live
   * subscription the new events concern; what the freed slots can take was
   * built already, and wakes owed meanwhile wait at most MIN_PASS_GAP_MS for
   * the next pass.
   */
  private claimSoon(): void {
    this.freed = true;
    if (!this.kicked) this.interrupt?.abort();
  }

  /**
   * One pass: project and build what is due, then send what is due. Answers
   * how many projection steps it took. Exposed for tests and the bench.
   */
  async cycle(): Promise<number> {
    // Again only while a step took a full batch (a backlog to catch up): under a steady stream of writes every
    // step finds a few new events, and looping until one found none projected back to back (over a hundred
    // steps a second, each reading and rewriting every live subscription concerned) and sent nothing meanwhile.
    let steps = 0;
    for (;;) {
      const result = await this.ctx.db.transaction((tx) => project(tx, this.issuer));
      steps += 1;
      if (!result.ran || result.events < PROJECTION_BATCH) break;
    }
    await this.claimAndSend();
    return steps;
  }

  /** Claims what is due, as much as the free slots take, and sends each claimed delivery. */
  private async claimAndSend(): Promise<void> {
    this.freed = false;
    while (this.running) {
      const now = this.ctx.clock.now();
      const room = SEND_CONCURRENCY - this.sending.size;
      if (room <= 0 || !this.worthClaiming(room)) {
        this.lastClaim = now;
        break;
      }
      this.claimWorthAt = undefined;
      const started = performance.now();
      const claimed = await claimDue(this.ctx.db, now, this.ctx.config.webhookTimeoutMs, room, this.caps, [...this.onTheWire]);
      this.claimedAt = performance.now();
      this.claimMs = 0.7 * this.claimMs + 0.3 * (this.claimedAt - started);
      this.lastClaim = now;
      const stopped = await cancellations(this.ctx.db.kysely, claimed);
      for (const [id, reason] of stopped) this.ctx.log.info({ delivery: id, reason }, 'webhook delivery cancelled');
      await cancel(this.ctx.db, stopped, this.ctx.metrics);
      // Read once per claim: a rotation on any node takes effect from the next claim on.
      const key = claimed.length > stopped.size ? await this.ctx.webhookKeys.active() : undefined;
      for (const delivery of claimed) if (key && !stopped.has(delivery.id)) this.send(delivery, key);
      if (claimed.length < room) break;
    }
  }

  /**
   * Whether `room` free slots are worth a claim now. With nothing on the wire,
   * always: no ending attempt would claim later. Otherwise when the slots make
   * a batch (claimBatch), or when the last claim ended long enough ago that
   * claiming for a few slots costs at most a tenth of the node's time. Every
   * pass claimed whatever was free: with ten thousand due, a pass every 50 ms
   * spent 27 ms of the event loop ranking them to fill one slot, which slowed
   * the sends that free slots, so the next pass found one free again.
   */
  private worthClaiming(room: number): boolean {
    if (this.sending.size === 0 || room >= claimBatch(this.claimMs)) return true;
    const worthAt = this.claimedAt + CLAIM_TIME_SHARE * this.claimMs;
    if (performance.now() >= worthAt) return true;
    // The loop sleeps no longer than this (nextDue): slots held by hung receivers end no sooner than their time limit.
    this.claimWorthAt = worthAt;
    return false;
  }

  private get caps(): SendCaps {
    return { perEndpoint: this.ctx.config.webhookConcurrencyPerEndpoint, perMember: this.ctx.config.webhookConcurrencyPerMember };
  }

  /** One attempt on its own: when it ends, its record joins the next batch written, and the loop looks for more. */
  private send(delivery: Parameters<typeof attempt>[1], key: Parameters<typeof attempt>[2]): void {
    this.onTheWire.add(delivery.id);
    const sent: Promise<void> = attempt(this.attemptDeps, delivery, key)
      .then((record) => {
        this.finished.push(record);
        return this.record();
      })
      .then(() => this.failures.attempt.worked('webhook attempts run again'))
      .catch((err: unknown) => this.failures.attempt.failed(err, { delivery: delivery.id }, 'webhook attempt failed to run; its claim will lapse and it will be sent again'))
      .finally(() => {
        this.sending.delete(sent);
        this.onTheWire.delete(delivery.id);
      });
    this.sending.add(sent);
  }

  /**
   * Writes finished attempts, one transaction at a time, each taking all that
   * finished meanwhile; then the loop looks for more work once per batch, not
   * once per attempt (on SQLite each look holds the event loop a moment).
   */
  private async record(): Promise<void> {
    while (this.recording) await this.recording;
    if (this.finished.length === 0) return;
    const batch = this.finished;
    this.finished = [];
    this.recording = recordAttempts(this.ctx, batch).finally(() => {
      this.recording = undefined;
      // The batch's attempts still count in `sending` until this returns.
      const free = SEND_CONCURRENCY - this.sending.size + batch.length;
      if (free >= claimBatch(this.claimMs)) this.claimSoon();
      else this.nudge();
    });
    await this.recording;
  }

  private async run(): Promise<void> {
    while (this.running) {
      // SQLite answers synchronously: without a turn of the event loop here, a loop with nothing to wait for would starve every request.
      await new Promise((resolve) => setImmediate(resolve));
      const gap = this.lastPass + MIN_PASS_GAP_MS - Date.now();
      if (gap > 0 && !this.kicked) {
        if (this.freed) {
          await this.claimAndSend().then(
            () => this.failures.claim.worked('webhook claims work again'),
            (err: unknown) => this.failures.claim.failed(err, {}, 'webhook claim failed; retrying'),
          );
          continue;
        }
        // Cut short by a kick, a stop, or freed slots (claimSoon): the loop then looks again.
        await this.pause(gap);
        continue;
      }
      if (!this.running) break;
      this.lastPass = Date.now();
      this.kicked = false;
      this.nudged = false;
      const seen = this.ctx.events.tail.head;
      try {
        await this.cycle();
        this.failures.cycle.worked('webhook delivery works again');
      } catch (err) {
        if (!this.running) break;
        this.failures.cycle.failed(err, {}, 'webhook delivery cycle failed; retrying');
      }
      if (!this.running || this.kicked || this.nudged || this.freed) continue;
      await this.sleep(seen, await this.nextDue());
    }
  }

  /** The soonest owed window, retry or lapsing lease (epoch ms) the last claim could not see, at most IDLE_LOOK_MS away. */
  private async nextDue(): Promise<number> {
    const now = this.ctx.clock.now().getTime();
    let due = now + IDLE_LOOK_MS;
    try {
      const owed = await nextOwedDue(this.ctx.db.kysely);
      // Only what this node could claim: deliveries waiting for a paused subscription or an inactive endpoint are not due.
      const claimable = sql<string>`case when d.lease_until > d.next_attempt_ts then d.lease_until else d.next_attempt_ts end`;
      // The pending deliveries first, on their own, then their subscriptions and endpoints by key (as claims do, sender.ts).
      const retry = await this.ctx.db.kysely
        .with(
          (cte) => cte('pending').materialized(),
          (q) =>
            q
              .selectFrom('webhook_deliveries as d')
              .select(['d.subscription_id', claimable.as('claimable')])
              .where('d.status', '=', 'pending')
              .where(claimable, '>', this.lastClaim.toISOString()),
        )
        .selectFrom('pending as d')
        .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
        .innerJoin('webhook_endpoints as e', 'e.id', 's.endpoint_id')
        .select(sql<string | null>`min(d.claimable)`.as('next'))
        .where('s.status', '=', 'active')
        .where('s.deleted_ts', 'is', null)
        .where('e.status', '=', 'active')
        .where('e.deleted_ts', 'is', null)
        .executeTakeFirst();
      if (owed !== undefined) due = Math.min(due, owed);
      if (typeof retry?.next === 'string') due = Math.min(due, Date.parse(retry.next));
      if (this.claimWorthAt !== undefined) due = Math.min(due, now + Math.max(0, this.claimWorthAt - performance.now()));
      this.failures.due.worked('webhook worker reads its next due time again');
    } catch (err) {
      this.failures.due.failed(err, {}, 'webhook worker could not read its next due time');
    }
    return due;
  }

  /** Real time between passes (MIN_PASS_GAP_MS), cut short by a kick or stop. */
  private async pause(ms: number): Promise<void> {
    this.interrupt = new AbortController();
    const signal = this.interrupt.signal;
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
    } finally {
      this.interrupt = undefined;
    }
  }

  /** Until an event newer than `seen` is followed, a kick, or `due` (by the injected clock). */
  private async sleep(seen: number, due: number): Promise<void> {
    const ms = Math.max(0, due - this.ctx.clock.now().getTime());
    if (ms === 0) return;
    this.interrupt = new AbortController();
    // A kick (or a nudge) that came while the due time was being read.
    if (this.kicked || this.nudged || this.freed || !this.running) return;
    this.sleeping = true;
    try {
      const tail = this.ctx.events.tail;
      if (tail.isStopped) await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.interrupt!.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
      else await tail.waitFor([feedKeys.host], seen, Date.now() + ms, { signal: this.interrupt.signal, background: true });
    } finally {
      this.sleeping = false;
      this.interrupt = undefined;
    }
  }
}

/** Deliveries pending on the host, to send or to retry (metrics and the operator's page). */
export async function webhookQueueDepth(db: Database): Promise<number> {
  const row = await db.kysely.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'pending').executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Age in seconds of the oldest wake owed and not yet delivered on the host; 0 when none (metrics and the operator's page). */
export async function oldestOwedSeconds(db: Database, now: Date): Promise<number> {
  const row = await db.kysely.selectFrom('webhook_deliveries').select((eb) => eb.fn.min('created_ts').as('oldest')).where('status', '=', 'pending').executeTakeFirst();
  const owed = await db.kysely
    .selectFrom('webhook_subscriptions')
    .select((eb) => eb.fn.min('owed_since_ts').as('oldest'))
    .where('deleted_ts', 'is', null)
    .where('status', '=', 'active')
    .where('owed_through', 'is not', null)
    .executeTakeFirst();
  const oldest = [row?.oldest, owed?.oldest].filter((v): v is string => typeof v === 'string').sort()[0];
  return oldest === undefined ? 0 : Math.max(0, (now.getTime() - Date.parse(oldest)) / 1000);
}
