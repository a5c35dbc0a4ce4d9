import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../observability/metrics.js';
import type { Clock } from '../shared/clock.js';
import type { Database, Tx } from '../storage/database.js';
import { SWEEPS, type Sweep } from './sweeps.js';

/** Rows removed per transaction: short enough that no writer waits long on a sweep, and a kill loses at most one uncommitted batch. */
export const JANITOR_BATCH = 500;

/** What one run removed, table by table, and when it ran. */
export interface JanitorRun {
  started_ts: string;
  finished_ts: string;
  removed: Record<string, number>;
  /** Tables another node was sweeping at the time (PostgreSQL): left to it. */
  skipped: string[];
}

export interface JanitorDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  config: Pick<Config, 'webhookDeliveryRetentionDays' | 'janitorIntervalSeconds'>;
  /** Whether this node leads the event log (always, on SQLite): only the leading node runs the janitor. */
  leading: () => boolean;
  /** Told of each committed batch (`atrium admin janitor` prints them). */
  onBatch?: (table: string, removed: number) => void;
}

/**
 * Removes what has expired from the bookkeeping tables (docs/operations.md,
 * "Growth"), in batches of JANITOR_BATCH, each its own transaction: sessions,
 * sign-in and activation codes, idempotency records, rate-limit hits, OAuth
 * requests, tokens and unused registrations, old finished webhook deliveries,
 * and blobs no Resource version names. The event log is never touched: it is
 * the history every reader resumes from.
 *
 * It runs on the leading node. During a change of leader two nodes may both
 * think they lead for a moment; each batch first takes a lock on its table
 * (PostgreSQL, without waiting), so the second finds it held and leaves the
 * table to the first. Killed mid-batch, the batch rolls back; every batch
 * removes only what expired, so nothing live is ever at stake.
 */
export class Janitor {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<JanitorRun | undefined> | undefined;
  private stopped = false;
  private readonly removedTotal = new Map<string, number>();
  /** The last run that did its work; undefined until one has. */
  last: JanitorRun | undefined;

  constructor(private readonly deps: JanitorDeps) {
    deps.metrics.counter('atrium_janitor_removed_total', 'Expired rows the janitor removed on this node, by table.', () => [...this.removedTotal].map(([table, n]) => [{ table }, n]), ['table']);
    deps.metrics.gauge('atrium_janitor_last_run_timestamp_seconds', "When this node's janitor last finished a run (0: never).", () => (this.last ? Date.parse(this.last.finished_ts) / 1000 : 0));
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.run()
        .catch((err: unknown) => this.deps.log.error({ err }, 'janitor run failed; it runs again at its next turn'))
        .finally(() => this.schedule());
    }, this.deps.config.janitorIntervalSeconds * 1000);
    this.timer.unref();
  }

  /** One run now, unless this node does not lead or a run is under way (then that run's outcome). Exposed for tests and the operator. */
  run(): Promise<JanitorRun | undefined> {
    this.running ??= this.sweepAll().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepAll(): Promise<JanitorRun | undefined> {
    if (!this.deps.leading()) return undefined;
    const started = this.deps.clock.now();
    const removed: Record<string, number> = {};
    const skipped: string[] = [];
    for (const sweep of SWEEPS) {
      if (this.stopped) break;
      const outcome = await this.sweepTable(sweep);
      if (outcome === 'held elsewhere') skipped.push(sweep.table);
      else removed[sweep.table] = outcome;
    }
    const run: JanitorRun = { started_ts: started.toISOString(), finished_ts: this.deps.clock.now().toISOString(), removed, skipped };
    this.last = run;
    const total = Object.values(removed).reduce((a, b) => a + b, 0);
    if (total > 0 || skipped.length > 0) this.deps.log.info({ removed, skipped }, 'janitor removed expired records');
    return run;
  }

  private async sweepTable(sweep: Sweep): Promise<number | 'held elsewhere'> {
    let removed = 0;
    for (;;) {
      const batch = await this.deps.db.transaction(async (tx) => {
        if (!(await tryLock(tx, `atrium_janitor:${sweep.table}`))) return 'held elsewhere' as const;
        return sweep.batch(tx, tx.now, JANITOR_BATCH, this.deps.config);
      });
      if (batch === 'held elsewhere') return removed > 0 ? removed : batch;
      removed += batch;
      this.removedTotal.set(sweep.table, (this.removedTotal.get(sweep.table) ?? 0) + batch);
      if (batch > 0) this.deps.onBatch?.(sweep.table, batch);
      if (batch < JANITOR_BATCH || this.stopped) return removed;
    }
  }
}

/** PostgreSQL: a transaction-scoped advisory lock on `name`, if free now. SQLite: one node, one writer at a time; always. */
async function tryLock(tx: Tx, name: string): Promise<boolean> {
  if (tx.dialect !== 'postgres') return true;
  const row = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) as locked`.execute(tx.db);
  return row.rows[0]?.locked === true;
}
