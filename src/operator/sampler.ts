import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { EventLog } from '../events/log.js';
import type { JanitorRun } from '../janitor/janitor.js';
import type { Clock } from '../shared/clock.js';
import type { Database } from '../storage/database.js';
import { oldestOwedSeconds, webhookQueueDepth } from '../webhooks/worker.js';
import type { NodeSample } from './schemas.js';

/** How often a node writes what it reads of itself. */
export const SAMPLE_EVERY_MS = 10_000;

export interface SamplerDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  events: Pick<EventLog, 'tail' | 'leading'>;
  /** What `/readyz` would answer now. */
  ready: () => boolean;
  /** The janitor's last run on this node. */
  janitor: () => JanitorRun | undefined;
}

/**
 * Every serving node writes a row of its own readings every ten seconds
 * (docs/operations.md, "The operator's page"): the same numbers `/metrics`
 * serves, kept in the database so the page can plot every node's last half
 * hour whichever node answers it, with no metrics system to run. A row is a
 * few hundred bytes; a node writes 8,640 a day, which the janitor removes
 * after a day.
 */
export class OperatorSampler {
  readonly node = `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private requests = 0;
  private errors: Record<string, number> = {};
  private previous: { at: number; head: number } | undefined;

  constructor(private readonly deps: SamplerDeps) {}

  /** One API answer: counted, and by its error code when it has one. */
  noteAnswer(status: number, code: string | undefined): void {
    this.requests += 1;
    if (status >= 400 && code) this.errors[code] = (this.errors[code] ?? 0) + 1;
  }

  start(): void {
    this.timer = setInterval(() => {
      void this.record().catch((err: unknown) => this.deps.log.warn({ err }, 'could not record this node’s operator sample'));
    }, SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads this node now and writes the row; answers it. Exposed for tests. */
  async record(): Promise<NodeSample> {
    const now = this.deps.clock.now();
    const head = this.deps.events.tail.head;
    const seconds = this.previous ? Math.max((now.getTime() - this.previous.at) / 1000, 0.001) : SAMPLE_EVERY_MS / 1000;
    const pool = this.deps.db.postgres?.pool;
    const janitor = this.deps.janitor();
    const sample: NodeSample = {
      ts: now.toISOString(),
      node: this.node,
      leading: this.deps.events.leading,
      ready: this.deps.ready(),
      head,
      events_per_second: this.previous ? Math.max(0, head - this.previous.head) / seconds : 0,
      requests_per_second: this.requests / seconds,
      errors: this.errors,
      long_poll_waiters: this.deps.events.tail.waiterCount,
      webhook_queue_depth: await webhookQueueDepth(this.deps.db),
      oldest_owed_wake_seconds: await oldestOwedSeconds(this.deps.db, now),
      db_pool: pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null,
      janitor: janitor ?? null,
    };
    this.previous = { at: now.getTime(), head };
    this.requests = 0;
    this.errors = {};
    // A node whose storage went away writes nothing more (storage/file-watch.ts); the other nodes' page shows it stopped sampling.
    if (this.deps.db.writesRefused !== undefined) return sample;
    await this.deps.db.kysely.insertInto('operator_samples').values({ node: this.node, ts: sample.ts, sample: JSON.stringify(sample) }).onConflict((oc) => oc.doNothing()).execute();
    return sample;
  }
}
