import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { LedgerDecision, LedgerRecord } from '../shared/gateway-wire.js';
import type { GatewaySchema, GatewayStore, LedgerTable, PendingTicketTable } from './store.js';

export const GENESIS_DIGEST = '0'.repeat(64);

/** A record's content: everything but the chain fields, which `append` sets. */
export type LedgerEntry = Omit<LedgerRecord, 'seq' | 'ts' | 'prev_digest' | 'digest'>;

/** Fields a record leaves null unless its kind of entry fills them. */
export const EMPTY_ENTRY: Omit<LedgerEntry, 'decision'> = {
  error_code: null,
  request_id: null,
  space: null,
  connection_id: null,
  member: null,
  member_type: null,
  operator: null,
  task_id: null,
  run_id: null,
  purpose: null,
  approval_id: null,
  destination_id: null,
  adapter_id: null,
  method: null,
  host: null,
  path: null,
  status: null,
  latency_ms: null,
  request_bytes: null,
  response_bytes: null,
  provider_request_id: null,
  ticket_fingerprint: null,
};

export function entry(decision: LedgerDecision, fields: Partial<Omit<LedgerEntry, 'decision'>>): LedgerEntry {
  return { ...EMPTY_ENTRY, decision, ...fields };
}

/** Hex SHA-256 of the RFC 8785 canonical JSON of the record without `digest`. */
export function recordDigest(record: Omit<LedgerRecord, 'digest'> | LedgerRecord): string {
  const { digest: _digest, ...rest } = record as LedgerRecord;
  return createHash('sha256').update(canonicalize(rest)!).digest('hex');
}

/** Appends records inside a transaction of the chain (`LedgerChain.transaction`). */
export type Append = (content: LedgerEntry, now: Date) => Promise<LedgerRecord>;

type Head = { seq: number; digest: string } | undefined;

/**
 * The gateway's one chain, appended to only through this process. The head
 * (last `seq` and digest) is kept in memory once read, so an append is one
 * INSERT rather than a lock, a read of the head and an insert. Writes to the
 * chain take turns inside the process, each from before it takes a database
 * connection until it has committed or rolled back (so a turn is never waited
 * for while holding the connection its holder needs), and the head moves
 * only on a commit. The primary key on `seq` turns any slip into a failed
 * append, never two heads: should another process write the same store (one
 * gateway per store is the rule), its append or ours fails, the head is
 * forgotten, and the next append reads it again.
 */
export class LedgerChain {
  private head: Head;
  private turn: Promise<void> = Promise.resolve();
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly store: GatewayStore) {}

  /** Resolves once every write begun so far has settled: a reader then sees the records of every answer already given. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  /** Runs `fn` in one transaction of the store; what it appends commits with the rest of it, or not at all. */
  transaction<T>(fn: (trx: Transaction<GatewaySchema>, append: Append) => Promise<T>): Promise<T> {
    return this.inTurn(async (head) => {
      let appended = head;
      const result = await this.store.transaction(async (trx) => {
        appended ??= await readHead(trx);
        return fn(trx, async (content, now) => {
          const record = chained(appended, content, now);
          await trx.insertInto('gateway_ledger').values(ledgerRow(record)).execute();
          appended = { seq: record.seq, digest: record.digest };
          return record;
        });
      });
      return { result, head: appended };
    });
  }

  /**
   * Appends one record in a statement of its own, with no transaction round
   * trips; `keep`, a ticket's kept request, commits with it or not at all (on
   * PostgreSQL in the same statement, on SQLite in one transaction).
   */
  append(content: LedgerEntry, now: Date, keep?: Insertable<PendingTicketTable>): Promise<LedgerRecord> {
    return this.inTurn(async (head) => {
      const record = chained(head ?? (await readHead(this.store.db)), content, now);
      const row = ledgerRow(record);
      if (keep === undefined) {
        await this.store.db.insertInto('gateway_ledger').values(row).execute();
      } else if (this.store.dialect === 'postgres') {
        await this.store.db
          .with('kept', (db) => db.insertInto('gateway_pending_tickets').values(keep))
          .insertInto('gateway_ledger')
          .values(row)
          .execute();
      } else {
        await this.store.transaction(async (trx) => {
          await trx.insertInto('gateway_pending_tickets').values(keep).execute();
          await trx.insertInto('gateway_ledger').values(row).execute();
        });
      }
      return { result: record, head: { seq: record.seq, digest: record.digest } };
    });
  }

  /**
   * Consumes a ticket and appends its `started` record in one statement on
   * PostgreSQL (one transaction on SQLite), only while the ticket is unused and
   * its kept request is exactly `bound`; false, with nothing changed,
   * otherwise (used, gone, or kept as something else).
   */
  consumeAndAppend(ticket: { jti: string; bound: string; consumedAt: string }, content: LedgerEntry, now: Date): Promise<boolean> {
    return this.inTurn(async (head) => {
      const known = head ?? (await readHead(this.store.db));
      const record = chained(known, content, now);
      const row = ledgerRow(record);
      let consumed: boolean;
      if (this.store.dialect === 'postgres') {
        const result = await sql`
          with consumed as (
            update gateway_pending_tickets set consumed_at = ${ticket.consumedAt}
            where jti = ${ticket.jti} and consumed_at is null and bound = ${ticket.bound}
            returning jti
          )
          insert into gateway_ledger (seq, space, member, run_id, digest, record)
          select ${row.seq}::bigint, ${row.space}::text, ${row.member}::text, ${row.run_id}::text, ${row.digest}::text, ${row.record}::text from consumed`.execute(this.store.db);
        consumed = Number(result.numAffectedRows ?? 0) === 1;
      } else {
        consumed = await this.store.transaction(async (trx) => {
          const updated = await trx
            .updateTable('gateway_pending_tickets')
            .set({ consumed_at: ticket.consumedAt })
            .where('jti', '=', ticket.jti)
            .where('consumed_at', 'is', null)
            .where('bound', '=', ticket.bound)
            .executeTakeFirst();
          if (Number(updated.numUpdatedRows) !== 1) return false;
          await trx.insertInto('gateway_ledger').values(row).execute();
          return true;
        });
      }
      return { result: consumed, head: consumed ? { seq: record.seq, digest: record.digest } : known };
    });
  }

  /** Runs one write to the chain in its turn; its new head is kept only if it succeeded. */
  private inTurn<T>(write: (head: Head) => Promise<{ result: T; head: Head }>): Promise<T> {
    const previous = this.turn;
    let release!: () => void;
    this.turn = new Promise<void>((resolve) => (release = resolve));
    const running = (async () => {
      await previous;
      try {
        const { result, head } = await write(this.head);
        this.head = head;
        return result;
      } catch (err) {
        this.head = undefined;
        throw err;
      } finally {
        release();
      }
    })();
    this.running.add(running);
    void running.then(
      () => this.running.delete(running),
      () => this.running.delete(running),
    );
    return running;
  }
}

/** The record that follows `head`, with its digest. */
function chained(head: Head, content: LedgerEntry, now: Date): LedgerRecord {
  const unsigned: Omit<LedgerRecord, 'digest'> = {
    seq: (head?.seq ?? 0) + 1,
    ts: now.toISOString(),
    ...content,
    prev_digest: head?.digest ?? GENESIS_DIGEST,
  };
  return { ...unsigned, digest: recordDigest(unsigned) };
}

function ledgerRow(record: LedgerRecord): Insertable<LedgerTable> {
  return { seq: record.seq, space: record.space, member: record.member, run_id: record.run_id, digest: record.digest, record: JSON.stringify(record) };
}

async function readHead(db: Kysely<GatewaySchema>): Promise<Head> {
  const row = await db.selectFrom('gateway_ledger').select(['seq', 'digest']).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  return row === undefined ? undefined : { seq: Number(row.seq), digest: row.digest };
}

export interface LedgerQuery {
  since: number;
  limit: number;
  space?: string;
  actor?: string;
  runId?: string;
}

/** Records after `since`, ascending, filtered exactly by Space, member and run. */
export async function readLedger(db: Kysely<GatewaySchema>, q: LedgerQuery): Promise<LedgerRecord[]> {
  let query = db.selectFrom('gateway_ledger').select('record').where('seq', '>', q.since);
  if (q.space !== undefined) query = query.where('space', '=', q.space);
  if (q.actor !== undefined) query = query.where('member', '=', q.actor);
  if (q.runId !== undefined) query = query.where('run_id', '=', q.runId);
  const rows = await query.orderBy('seq').limit(q.limit).execute();
  return rows.map((r) => JSON.parse(r.record) as LedgerRecord);
}

export type Verification = { ok: true; count: number } | { ok: false; count: number; seq: number; reason: string };

/**
 * The fields every record about one ticket repeats from its `issued` record:
 * the ticket's signature binds them all, and the gateway writes the later
 * records from the request it kept, which must match the signature to be used.
 */
export const TICKET_BOUND_FIELDS = [
  'request_id',
  'space',
  'connection_id',
  'member',
  'member_type',
  'operator',
  'task_id',
  'run_id',
  'purpose',
  'approval_id',
  'destination_id',
  'method',
  'host',
  'path',
] as const satisfies ReadonlyArray<keyof LedgerRecord>;

/**
 * Recomputes the chain from the first record: each `seq` one more than the
 * last, each `prev_digest` the digest before it, each digest the hash of its
 * record, and the columns the filters use equal to the record's fields. Every
 * record about a ticket (`started`, its outcome, a replay's or an expiry's
 * `denied`) must also follow that ticket's `issued` record and repeat its
 * bound fields: a rewrite of those later records, rehashed from there on,
 * keeps the chain whole but not the agreement.
 */
export async function verifyLedger(store: GatewayStore): Promise<Verification> {
  let prev = GENESIS_DIGEST;
  let expected = 1;
  let count = 0;
  const PAGE = 1000;
  for (;;) {
    const rows = await store.db.selectFrom('gateway_ledger').selectAll().where('seq', '>=', expected).orderBy('seq').limit(PAGE).execute();
    const issued = await issuedRecordsFor(store.db, rows);
    for (const row of rows) {
      const fail = (reason: string): Verification => ({ ok: false, count, seq: Number(row.seq), reason });
      if (Number(row.seq) !== expected) return { ok: false, count, seq: expected, reason: `record ${expected} is missing (the next is ${row.seq})` };
      const record = parseRecord(row.record);
      if (record === undefined) return fail('the stored record is not JSON');
      if (record.seq !== expected) return fail(`the record says seq ${String(record.seq)}`);
      if (record.prev_digest !== prev) return fail('prev_digest is not the digest of the record before');
      if (recordDigest(record) !== record.digest) return fail('digest does not match the record');
      if (row.digest !== record.digest || row.space !== record.space || row.member !== record.member || row.run_id !== record.run_id) {
        return fail('the indexed columns differ from the record');
      }
      if (record.ticket_fingerprint !== null && record.decision !== 'issued') {
        const origin = issued.get(record.ticket_fingerprint);
        if (origin === undefined || origin.seq >= record.seq) return fail('no issued record of its ticket comes before it');
        const differs = TICKET_BOUND_FIELDS.find((field) => record[field] !== origin[field]);
        if (differs !== undefined) return fail(`${differs} differs from the issued record of its ticket (seq ${origin.seq})`);
      }
      prev = record.digest;
      expected += 1;
      count += 1;
    }
    if (rows.length < PAGE) return { ok: true, count };
  }
}

function parseRecord(text: string): LedgerRecord | undefined {
  try {
    return JSON.parse(text) as LedgerRecord;
  } catch {
    return undefined;
  }
}

/**
 * The `issued` records of the tickets a page's later records are about, by
 * ticket fingerprint. A ticket binds its run id, so they are found through the
 * run index: the whole ledger is never held in memory.
 */
async function issuedRecordsFor(db: Kysely<GatewaySchema>, rows: ReadonlyArray<{ seq: number; run_id: string | null; record: string }>): Promise<Map<string, LedgerRecord>> {
  const runs = new Set<string>();
  for (const row of rows) {
    const record = parseRecord(row.record);
    if (record?.ticket_fingerprint && record.decision !== 'issued' && row.run_id !== null) runs.add(row.run_id);
  }
  const issued = new Map<string, LedgerRecord>();
  if (runs.size === 0) return issued;
  const last = rows.at(-1)!.seq;
  const candidates = await db.selectFrom('gateway_ledger').select('record').where('run_id', 'in', [...runs]).where('seq', '<=', last).orderBy('seq').execute();
  for (const candidate of candidates) {
    const record = parseRecord(candidate.record);
    if (record?.decision === 'issued' && record.ticket_fingerprint && !issued.has(record.ticket_fingerprint)) issued.set(record.ticket_fingerprint, record);
  }
  return issued;
}
