import type pg from 'pg';
import type { Logger } from 'pino';

/** What one sequencing transaction did. */
export interface SequencedBatch {
  /** The newest cursor after it (every cursor up to it is committed). */
  head: number;
  /** How many events it numbered. */
  count: number;
  /** The `pending_events` ids it numbered, as inclusive ranges. */
  queued: Array<[number, number]>;
  /** The numbered events' routing columns, in cursor order (only on the node that numbered them). */
  routes?: EventRoute[];
}

/** What the tail needs of an event to know whom it may concern. */
export interface EventRoute {
  cursor: number;
  space: string | null;
  subjects: string;
  /** The event type: a deletion changes what kept pages say (page-cache.ts). */
  type: string;
}

/** Events numbered per transaction: bounds the notification payload (PostgreSQL caps it at 8000 bytes). */
export const SEQUENCE_BATCH = 200;

/**
 * First half of the two-int advisory lock keys: "ATRI". The second half is the
 * schema, so hosts sharing one database (tests do) keep separate logs.
 */
export const SEQUENCING_LOCK_NAMESPACE = 0x41545249;

/**
 * Numbers queued events (PostgreSQL; docs/events.md, "The sequencer").
 *
 * One transaction per batch, sent as one round trip: take the log's
 * transaction-scoped advisory lock, move up to SEQUENCE_BATCH committed rows of
 * `pending_events` into `events` with cursors after the current head (in queue
 * order), add their subject and audience rows, announce the batch on the
 * notification channel, commit.
 *
 * Why cursor order is visibility order: only this transaction ever inserts
 * into `events`, it numbers from the head it reads under the lock, and the
 * lock is released by COMMIT after its rows became visible. So a batch is
 * visible before the next one can be numbered, and every cursor a reader is
 * handed has every lower cursor already visible. The lock makes that hold even
 * if two nodes both believe they lead for a moment (a lost connection, a
 * paused process): their transactions then simply take turns.
 */
export function sequenceStatement(channel: string): string {
  // Simple-query text: no parameters, so every value here is a constant of ours.
  return `BEGIN;
SELECT pg_advisory_xact_lock(${SEQUENCING_LOCK_NAMESPACE}, hashtext(current_schema()));
WITH batch AS (
  DELETE FROM pending_events WHERE id IN (SELECT id FROM pending_events ORDER BY id LIMIT ${SEQUENCE_BATCH})
  RETURNING id, type, space, actor, subjects, payload, audience, created_ts
), head AS (
  SELECT coalesce(max(cursor), 0) AS head FROM events
), numbered AS (
  SELECT batch.*, head.head + row_number() OVER (ORDER BY batch.id) AS cursor FROM batch, head
), inserted AS (
  INSERT INTO events (cursor, type, space, actor, subjects, payload, audience, created_ts)
  SELECT cursor, type, space, actor, subjects, payload, audience, created_ts FROM numbered
  RETURNING cursor, type, space, subjects, audience
), subject_rows AS (
  INSERT INTO event_subjects (subject, cursor)
  SELECT DISTINCT s.subject, inserted.cursor FROM inserted CROSS JOIN LATERAL json_array_elements_text(inserted.subjects::json) AS s(subject)
), audience_rows AS (
  INSERT INTO event_audience (cursor, member)
  SELECT DISTINCT inserted.cursor, a.member FROM inserted CROSS JOIN LATERAL json_array_elements_text(inserted.audience::json) AS a(member)
  WHERE inserted.audience IS NOT NULL
), runs AS (
  SELECT min(id) AS first, max(id) AS last FROM (SELECT id, id - row_number() OVER (ORDER BY id) AS run FROM numbered) ids GROUP BY run
), summary AS (
  SELECT (SELECT count(*) FROM numbered) AS count,
         (SELECT max(cursor) FROM numbered) AS head,
         (SELECT string_agg(first || '-' || last, ',' ORDER BY first) FROM runs) AS queued,
         (SELECT json_agg(json_build_array(cursor, space, subjects, type) ORDER BY cursor) FROM inserted) AS routes
)
SELECT count, head, queued, routes, CASE WHEN count > 0 THEN pg_notify('${channel}', head || ';' || queued) END AS announced FROM summary;
COMMIT;`;
}

/** `head;first-last,first-last` (the announcement) into a batch. */
export function parseAnnouncement(payload: string): Pick<SequencedBatch, 'head' | 'queued'> | undefined {
  const [head, ranges] = payload.split(';');
  const cursor = Number(head);
  if (!Number.isSafeInteger(cursor) || ranges === undefined) return undefined;
  const queued = ranges
    .split(',')
    .filter((range) => range !== '')
    .map((range) => range.split('-').map(Number) as [number, number]);
  return { head: cursor, queued };
}

export interface SequencerOptions {
  pool: pg.Pool;
  /** The channel batches are announced on. */
  channel: string;
  log: Logger;
  /** Told of every batch this node numbered (the announcement also reaches every node). */
  onBatch(batch: SequencedBatch): void;
  /** How often an idle leader looks for queued events that no wake announced. */
  idleCheckMs: number;
}

/**
 * The leader's loop: a cycle whenever woken (a local commit, or another node's
 * notice that it queued events), again at once while batches come back full
 * or a wake arrived during the cycle, and every `idleCheckMs` regardless.
 */
export class Sequencer {
  private running = false;
  private woken = false;
  private wakeNow: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private readonly statement: string;
  /** The cycle running now, if any. */
  private current: Promise<unknown> | undefined;

  constructor(private readonly opts: SequencerOptions) {
    this.statement = sequenceStatement(opts.channel);
  }

  /** Runs one sequencing transaction. */
  async cycle(): Promise<SequencedBatch> {
    const running = this.numberOnce();
    this.current = running;
    try {
      return await running;
    } finally {
      if (this.current === running) this.current = undefined;
    }
  }

  /** Resolves once the cycle running now (if any) has ended and reported its batch. */
  async settled(): Promise<void> {
    await this.current?.catch(() => undefined);
  }

  private async numberOnce(): Promise<SequencedBatch> {
    const client = await this.opts.pool.connect();
    try {
      const results = (await client.query(this.statement)) as unknown as pg.QueryResult[];
      const row = results.find((r) => r.command === 'SELECT' && r.fields.some((f) => f.name === 'announced'))?.rows[0] as
        | { count: number | string; head: number | string | null; queued: string | null; routes: Array<[number, string | null, string, string]> | null }
        | undefined;
      const count = Number(row?.count ?? 0);
      const batch: SequencedBatch = {
        count,
        head: Number(row?.head ?? 0),
        queued: count > 0 && row?.queued ? parseAnnouncement(`0;${row.queued}`)!.queued : [],
        routes: (row?.routes ?? []).map(([cursor, space, subjects, type]) => ({ cursor: Number(cursor), space, subjects, type })),
      };
      if (count > 0) this.opts.onBatch(batch);
      return batch;
    } catch (err) {
      // A failed statement leaves the explicit transaction open and aborted.
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Events were queued: run a cycle soon. */
  wake(): void {
    this.woken = true;
    this.wakeNow?.();
  }

  /** Starts leading: cycles until stop(). */
  lead(): void {
    if (this.running) return;
    this.running = true;
    this.woken = true;
    this.loop = this.run();
  }

  /** Stops leading after the cycle in progress. */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeNow?.();
    await this.loop;
    this.loop = undefined;
  }

  get leading(): boolean {
    return this.running;
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let full = false;
      try {
        full = (await this.cycle()).count === SEQUENCE_BATCH;
      } catch (err) {
        this.opts.log.error({ err }, 'event sequencing failed; retrying');
        await this.idle(Math.min(1000, this.opts.idleCheckMs));
        continue;
      }
      if (full || this.woken) continue;
      await this.idle(this.opts.idleCheckMs);
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeNow = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeNow = done;
      if (this.woken || !this.running) done();
    });
  }
}
