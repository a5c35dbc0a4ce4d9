import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Clock } from './clock.js';
import type { DatabaseSchema } from '../storage/schema.js';

/** How long a key is kept: a retry after this runs as a new request. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** How often a node deletes the expired records of every caller. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/** What a key is kept under: the same key means nothing across callers, methods or paths. */
export interface KeyedRequest {
  owner: string;
  method: string;
  path: string;
  key: string;
}

/** This request holds the key and runs; `createdTs` tells its record from a later one under the same key. */
export interface Reservation extends KeyedRequest {
  createdTs: string;
}

export type Claim =
  | { outcome: 'run'; reservation: Reservation }
  | { outcome: 'replay'; status: number; response: string }
  | { outcome: 'running' }
  | { outcome: 'other_body' };

/**
 * The records behind `Idempotency-Key` (docs/idempotency.md). Each step is one
 * statement on its own, outside any unit of work: the reservation must be
 * visible to other requests (and other nodes) while the operation runs.
 */
export class IdempotencyKeys {
  private nextSweep = 0;

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: Clock,
  ) {}

  /**
   * Reserves the key for this request, or says what an earlier request with it
   * left. The insert is the arbiter under concurrency: of two first requests
   * only one inserts; the other reads the winner's record. A record past its
   * 24 hours is overwritten by the same statement, as if it were absent.
   */
  async claim(request: KeyedRequest, requestHash: string): Promise<Claim> {
    const now = this.clock.now();
    const createdTs = now.toISOString();
    const cutoff = new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS).toISOString();
    await this.sweep(now.getTime(), cutoff);
    // The winner's record can vanish between our insert and our read (its
    // operation failed, so it released the key): then the key is free to try again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await this.db
        .insertInto('idempotency_keys')
        .values({ ...request, request_hash: requestHash, state: 'running', status: null, response: null, created_ts: createdTs })
        .onConflict((oc) =>
          oc
            .columns(['owner', 'method', 'path', 'key'])
            .doUpdateSet((eb) => ({
              request_hash: eb.ref('excluded.request_hash'),
              state: 'running',
              status: null,
              response: null,
              created_ts: eb.ref('excluded.created_ts'),
            }))
            .where('idempotency_keys.created_ts', '<=', cutoff),
        )
        .returning('created_ts')
        .executeTakeFirst();
      if (inserted) return { outcome: 'run', reservation: { ...request, createdTs } };
      const kept = await this.db
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'state', 'status', 'response'])
        .where('owner', '=', request.owner)
        .where('method', '=', request.method)
        .where('path', '=', request.path)
        .where('key', '=', request.key)
        .where('created_ts', '>', cutoff)
        .executeTakeFirst();
      if (!kept) continue;
      if (kept.request_hash !== requestHash) return { outcome: 'other_body' };
      if (kept.state === 'running') return { outcome: 'running' };
      return { outcome: 'replay', status: kept.status!, response: kept.response! };
    }
    // Three first requests in a row failed under our feet; the caller may simply retry.
    return { outcome: 'running' };
  }

  /** Keeps the success answer for replays. */
  async complete(reservation: Reservation, status: number, response: string): Promise<void> {
    await this.db.updateTable('idempotency_keys').set({ state: 'done', status, response }).where(heldBy(reservation)).execute();
  }

  /** Drops the reservation of a request that failed: an error answer is not kept, so the key may be used again. */
  async release(reservation: Reservation): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where(heldBy(reservation)).execute();
  }

  /**
   * Expired records are never read again, but nothing else deletes them. Once
   * an hour per node is plenty: the table then holds at most a day and an hour
   * of keys, and the delete walks the index on `created_ts`.
   */
  private async sweep(nowMs: number, cutoff: string): Promise<void> {
    if (nowMs < this.nextSweep) return;
    this.nextSweep = nowMs + SWEEP_INTERVAL_MS;
    await this.db.deleteFrom('idempotency_keys').where('created_ts', '<=', cutoff).execute();
  }
}

/** The record this reservation made, while it still runs: never one that expired and was claimed again by another request. */
function heldBy(reservation: Reservation) {
  return (eb: ExpressionBuilder<DatabaseSchema, 'idempotency_keys'>) =>
    eb.and([
      eb('owner', '=', reservation.owner),
      eb('method', '=', reservation.method),
      eb('path', '=', reservation.path),
      eb('key', '=', reservation.key),
      eb('created_ts', '=', reservation.createdTs),
      eb('state', '=', 'running'),
    ]);
}
