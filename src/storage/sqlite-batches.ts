import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { isDatabaseBusy } from './busy.js';
import type { DatabaseSchema } from './schema.js';

/** What a unit of work left to do once its transaction commits, or to undo if it does not. */
export interface UnitOutcome<T> {
  value: T;
  /** Tells the event log the unit's events are committed; called in commit order, right after COMMIT. */
  committed(): Promise<void>;
  /** The unit's writes will never commit (its savepoint, or the whole batch, was rolled back). */
  abandoned(): void;
  /** Called once whether or not the unit committed, after the outcome is final. */
  settled(): void;
}

/** One unit of work, run inside the batch's transaction. If it throws, it has settled whatever it began. */
export type Work<T> = (trx: Transaction<DatabaseSchema>) => Promise<UnitOutcome<T>>;

interface Queued {
  work: Work<unknown>;
  resolve(committed: Committed<unknown>): void;
  reject(err: unknown): void;
}

/** A unit that committed: its value, and the event log's answer to `committed()`, already asked. */
export interface Committed<T> {
  value: T;
  announced: Promise<void>;
}

/** Units that may share one SQLite transaction; beyond this the batch commits and the rest start the next. */
export const MAX_UNITS_PER_COMMIT = 32;

/**
 * Times a batch asks for the write lock while another process holds it, each
 * waiting out the busy timeout, before its units are told the database is busy
 * (503, retry later). Nothing has run before the lock is taken, so asking
 * again is safe.
 */
export const BEGIN_ATTEMPTS = 3;

const SAVEPOINT = CompiledQuery.raw('savepoint unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to unit');
const RELEASE = CompiledQuery.raw('release unit');

/**
 * Group commit on SQLite. Its one connection runs transactions one after
 * another, and most of a small write's cost there is the commit: every page it
 * changed is written to the write-ahead log, a post's message, event, subject,
 * search and sequence pages (about eighteen of them, two system calls each),
 * and the locks taken and released around it. Units that queued for the
 * connection while another ran have waited anyway, so they run in the same
 * transaction, each in a savepoint of its own (a unit that fails is rolled
 * back alone and answered at once), and the batch commits once: pages that
 * several units changed, such as the log's last leaf, are written once.
 *
 * A unit is answered only after the COMMIT that holds it, exactly as if it
 * had committed alone; if the COMMIT fails, or SQLite ended the transaction
 * itself (a full disk, an I/O error), every unit of the batch fails with it,
 * and none of them was answered before. Reads outside a transaction still
 * wait for the connection as they did, now for at most one batch.
 */
export class SqliteBatches {
  private readonly queue: Queued[] = [];
  private draining = false;

  constructor(private readonly kysely: Kysely<DatabaseSchema>) {}

  /** Resolves once the unit's transaction committed, or rejects with the unit's error or the batch's. */
  run<T>(work: Work<T>): Promise<Committed<T>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (committed: Committed<unknown>) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // better-sqlite3 is synchronous: a transaction whose work awaits only the
        // database runs start to end in one turn of the event loop, and nothing
        // else can queue meanwhile. Starting at the end of this turn lets every
        // request read in it join the batch.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.batch();
    } finally {
      this.draining = false;
    }
  }

  /** Runs `body` in a transaction, asking again for the write lock while another process holds it (BEGIN_ATTEMPTS). */
  private async begun(body: (trx: Transaction<DatabaseSchema>) => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let started = false;
      try {
        await this.kysely.transaction().execute((trx) => {
          started = true;
          return body(trx);
        });
        return;
      } catch (err) {
        if (started || attempt >= BEGIN_ATTEMPTS || !isDatabaseBusy(err)) throw err;
      }
    }
  }

  private async batch(): Promise<void> {
    const done: Array<{ unit: Queued; outcome: UnitOutcome<unknown> }> = [];
    /** A unit taken from the queue whose savepoint has not been settled yet. */
    let running: Queued | undefined;
    let taken = 0;
    try {
      await this.begun(async (trx) => {
        while (this.queue.length > 0 && done.length < MAX_UNITS_PER_COMMIT) {
          running = this.queue.shift()!;
          taken += 1;
          await trx.executeQuery(SAVEPOINT);
          let outcome: UnitOutcome<unknown>;
          try {
            outcome = await running.work(trx);
          } catch (err) {
            running.reject(err);
            running = undefined;
            // If SQLite already ended the transaction itself, this throws, and the batch fails with it.
            await trx.executeQuery(ROLLBACK_TO);
            await trx.executeQuery(RELEASE);
            continue;
          }
          await trx.executeQuery(RELEASE);
          done.push({ unit: running, outcome });
          running = undefined;
        }
      });
    } catch (err) {
      running?.reject(err);
      for (const { unit, outcome } of done) {
        outcome.abandoned();
        outcome.settled();
        unit.reject(err);
      }
      // Not even BEGIN succeeded (a closed database, a lock held past the busy
      // timeout on every attempt): every unit waiting would meet the same, and
      // retrying at once would only spin. Each is told, as each would have been on its own.
      if (taken === 0) for (const unit of this.queue.splice(0)) unit.reject(err);
      return;
    }
    // In commit order, before the next batch can begin: the event log follows cursors in order.
    for (const { unit, outcome } of done) {
      outcome.settled();
      unit.resolve({ value: outcome.value, announced: outcome.committed() });
    }
  }
}
