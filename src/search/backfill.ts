import { sql, type Selectable } from 'kysely';
import type { Logger } from 'pino';
import type { Metrics } from '../observability/metrics.js';
import type { Database, Tx } from '../storage/database.js';
import {
  INDEXED_MIME_TYPES,
  messageDocument,
  recordKey,
  removeDocument,
  resourceDocument,
  taskDocument,
  writeDocuments,
  type SearchDocument,
} from './index-writes.js';
import type { SearchBackfillTable, SearchKind } from './tables.js';

/**
 * Indexing the records that existed before the search index did
 * (docs/search-index.md, "The backfill"). Migration 0021 records, per kind,
 * how far back the walk must go; every serving node then walks what is left
 * in the background, a batch per short transaction, while it serves.
 *
 * - Idempotent: a batch writes a document only for a record that has none
 *   (or, for a Resource, one that no longer says what its current version
 *   says), so walking again, or a record that indexed itself meanwhile,
 *   writes nothing twice.
 * - Shared: each batch holds its kind's `search_backfill` row until it
 *   commits (PostgreSQL), so nodes walking at once take turns, batch by
 *   batch, and each record gets one document whoever reaches it.
 * - Newest first: messages and tasks are walked down from the highest id, so
 *   what people are most likely to look for is findable first.
 * - Each node's start extends the walk to the highest ids of that moment (and
 *   REWALKED_IDS below where it had reached) and walks every Resource again: a
 *   node of the previous version still serving after the migration writes
 *   records without documents, and this finds them (records such a node
 *   writes after the last node of the new version has started are found by
 *   the next start).
 */

export const BACKFILL_KINDS: readonly SearchKind[] = ['message', 'task', 'resource'];

export interface BackfillLimits {
  /** Messages or tasks looked at per batch, or Resources' metadata. */
  rows: number;
  /** Resource text read per batch, in bytes (at least one Resource is). */
  resourceBytes: number;
}

export const DEFAULT_LIMITS: BackfillLimits = { rows: 500, resourceBytes: 4 * 1024 * 1024 };

export interface BatchOutcome {
  /** Documents written (or, for Resources, rewritten or removed). */
  written: number;
  /** The kind's walk is complete. */
  finished: boolean;
}

type State = Selectable<SearchBackfillTable>;

/**
 * Ids below the top of the last walk that are walked again at each start. On
 * PostgreSQL an id is drawn when a row is inserted and seen when it commits,
 * so a record of an older node may commit after a walk passed its id; it was
 * drawn before the ids that committed first, so not far below them.
 */
export const REWALKED_IDS = 1_000;

/**
 * At a node's start: the walk of messages and tasks reaches up to the highest
 * ids there are now, and again over the last REWALKED_IDS below where it
 * reached before; Resources are walked again from the first.
 */
export async function extendBackfill(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    for (const [kind, table] of [
      ['message', 'messages'],
      ['task', 'tasks'],
    ] as const) {
      const query = tx.db.selectFrom('search_backfill').selectAll().where('kind', '=', kind);
      const state = await (tx.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
      if (!state) continue;
      const { highest } = await tx.db
        .selectFrom(table)
        .select((eb) => eb.fn.coalesce(eb.fn.max('id'), sql<number>`0`).as('highest'))
        .executeTakeFirstOrThrow();
      const { bound, low, high } = walked(state);
      const top = Math.max(0, Math.min(high, bound - REWALKED_IDS));
      await tx.db
        .updateTable('search_backfill')
        .set({ bound: Math.max(bound, Number(highest)), walked_high: top, walked_low: Math.min(low, top), finished_ts: null })
        .where('kind', '=', kind)
        .execute();
    }
    await tx.db.updateTable('search_backfill').set({ after_key: null, finished_ts: null }).where('kind', '=', 'resource').execute();
  });
}

/** One batch of one kind, in its own transaction. */
export async function backfillBatch(db: Database, kind: SearchKind, limits: BackfillLimits = DEFAULT_LIMITS): Promise<BatchOutcome> {
  return db.transaction(async (tx) => {
    const query = tx.db.selectFrom('search_backfill').selectAll().where('kind', '=', kind);
    const state = await (tx.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    if (!state || state.finished_ts !== null) return { written: 0, finished: true };
    return kind === 'resource' ? resourceBatch(tx, state, limits) : numberedBatch(tx, kind, state, limits);
  });
}

/** Every kind to its end, batch after batch (a kind at a time, newest first within it); answers the documents written. */
export async function runBackfill(db: Database, limits: BackfillLimits = DEFAULT_LIMITS, keepGoing: () => boolean = () => true): Promise<number> {
  let written = 0;
  for (const kind of BACKFILL_KINDS) {
    while (keepGoing()) {
      const outcome = await backfillBatch(db, kind, limits);
      written += outcome.written;
      if (outcome.finished) break;
      // SQLite answers synchronously: a turn of the event loop between batches lets requests in.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return written;
}

/**
 * What is left to walk, per kind: for messages and tasks the ids not yet
 * looked at (an upper bound on the records: ids have gaps), for Resources
 * the Resources after the walk's place.
 */
export async function backfillRemaining(db: Database): Promise<Array<[{ kind: SearchKind }, number]>> {
  const states = await db.kysely.selectFrom('search_backfill').selectAll().execute();
  const out: Array<[{ kind: SearchKind }, number]> = [];
  for (const state of states) {
    if (state.finished_ts !== null) {
      out.push([{ kind: state.kind }, 0]);
    } else if (state.kind === 'resource') {
      let query = db.kysely.selectFrom('resources').select((eb) => eb.fn.countAll<number>().as('n'));
      if (state.after_key !== null) query = query.where('id', '>', state.after_key);
      out.push([{ kind: state.kind }, Number((await query.executeTakeFirstOrThrow()).n)]);
    } else {
      const { bound, low, high } = walked(state);
      out.push([{ kind: state.kind }, Math.max(0, low) + Math.max(0, bound - high)]);
    }
  }
  return out;
}

function walked(state: State): { bound: number; low: number; high: number } {
  const bound = Number(state.bound ?? 0);
  return { bound, low: Number(state.walked_low ?? bound), high: Number(state.walked_high ?? bound) };
}

/**
 * Messages or tasks: first what a node's start added above the walked span
 * (upwards), then on down from its bottom. Only records without a document
 * are read in full and indexed.
 */
async function numberedBatch(tx: Tx, kind: 'message' | 'task', state: State, limits: BackfillLimits): Promise<BatchOutcome> {
  const { bound } = walked(state);
  let { low, high } = walked(state);
  const upwards = high < bound;
  const range = upwards ? { above: high, upTo: bound } : { above: -1, upTo: low };
  const rows = await unindexed(tx, kind, range, upwards, limits.rows);
  const ids = rows.map((r) => r.id);
  if (upwards) high = rows.length < limits.rows ? bound : Math.max(...ids);
  else low = rows.length < limits.rows ? 0 : Math.min(...ids) - 1;
  const documents = rows.flatMap((r) => (r.document === null ? [r.build()] : []));
  // Walking down, each batch is older than every document: ids below theirs. Walking up (what a
  // node's start added above the walk), the records are about as new as those indexed as written.
  const written = await writeDocuments(tx.db, tx.dialect, documents, 'ignore', upwards ? 'next' : 'below');
  const finished = high >= bound && low <= 0;
  await tx.db
    .updateTable('search_backfill')
    .set({ walked_low: low, walked_high: high, finished_ts: finished ? tx.now.toISOString() : null })
    .where('kind', '=', kind)
    .execute();
  return { written, finished };
}

interface Candidate {
  id: number;
  /** The record's document id, or null when it has none. */
  document: number | null;
  build(): SearchDocument;
}

/**
 * Up to `limit` messages or tasks with ids in (`above`, `upTo`], in walking
 * order, each with its document's id if it has one. Text is read only for
 * those without: after a node's start most of the span it walks indexed itself.
 */
async function unindexed(tx: Tx, kind: 'message' | 'task', range: { above: number; upTo: number }, upwards: boolean, limit: number): Promise<Candidate[]> {
  const order = upwards ? 'asc' : 'desc';
  if (kind === 'message') {
    const rows = await tx.db
      .selectFrom('messages as m')
      .leftJoin('search_documents as d', (join) => join.on('d.record_key', '=', sql<string>`'message:' || cast(m.id as text)`))
      .select(['m.id', 'm.space', 'm.channel', 'm.task_id', 'm.direct_member_a', 'm.direct_member_b', 'm.author', 'm.created_ts', 'd.id as document'])
      .select(sql<string>`case when d.id is null then m.body else '' end`.as('body'))
      .where('m.id', '>', range.above)
      .where('m.id', '<=', range.upTo)
      .where('m.deleted_ts', 'is', null)
      .orderBy('m.id', order)
      .limit(limit)
      // Held until the batch commits, so a deletion waits for it and then removes what it wrote, and a deleted one is passed over.
      .$if(tx.dialect === 'postgres', (q) => q.forShare('m'))
      .execute();
    return rows.map(({ document, ...message }) => ({
      id: Number(message.id),
      document: document === null ? null : Number(document),
      build: () => messageDocument({ ...message, id: Number(message.id), task_id: message.task_id === null ? null : Number(message.task_id) }),
    }));
  }
  const rows = await tx.db
    .selectFrom('tasks as t')
    .leftJoin('search_documents as d', (join) => join.on('d.record_key', '=', sql<string>`'task:' || cast(t.id as text)`))
    .select(['t.id', 't.space', 't.created_by', 't.created_ts', 'd.id as document'])
    .select(sql<string>`case when d.id is null then t.title else '' end`.as('title'))
    .select(sql<string>`case when d.id is null then t.body else '' end`.as('body'))
    .where('t.id', '>', range.above)
    .where('t.id', '<=', range.upTo)
    .orderBy('t.id', order)
    .limit(limit)
    .execute();
  return rows.map(({ document, ...task }) => ({
    id: Number(task.id),
    document: document === null ? null : Number(document),
    build: () => taskDocument({ ...task, id: Number(task.id) }),
  }));
}

const utf8 = new TextDecoder('utf-8');

/**
 * Resources, in id order from the walk's place. A Resource needs work when it
 * has no document, when its document is not its current version's (written
 * by a node of the previous version), or when its current version is not
 * searched but it has one. On PostgreSQL those are held (FOR SHARE) and read
 * again before they are written: a new version committing meanwhile would
 * otherwise be overwritten by what this batch read before it. Once held, a
 * new version waits for this batch, then writes its own document after it.
 */
async function resourceBatch(tx: Tx, state: State, limits: BackfillLimits): Promise<BatchOutcome> {
  const candidates = await resourceStates(tx, state.after_key, limits.rows);
  let bytes = 0;
  const taken: typeof candidates = [];
  for (const candidate of candidates) {
    const needed = needsWork(candidate);
    if (needed && taken.length > 0 && bytes + candidate.byte_length > limits.resourceBytes) break;
    taken.push(candidate);
    if (needed) bytes += candidate.byte_length;
  }
  let ids = taken.filter(needsWork).map((c) => c.id);
  let written = 0;
  if (ids.length > 0) {
    if (tx.dialect === 'postgres') {
      await tx.db.selectFrom('resources').select('id').where('id', 'in', ids).orderBy('id').forShare().execute();
      ids = (await resourceStates(tx, null, ids.length, ids)).filter(needsWork).map((c) => c.id);
    }
    written = await rewriteResources(tx, ids);
  }
  const finished = taken.length === candidates.length && candidates.length < limits.rows;
  const last = taken.at(-1)?.id ?? state.after_key;
  await tx.db
    .updateTable('search_backfill')
    .set({ after_key: last, finished_ts: finished ? tx.now.toISOString() : null })
    .where('kind', '=', 'resource')
    .execute();
  return { written, finished };
}

interface ResourceState {
  id: string;
  mime_type: string;
  author: string;
  created_ts: string;
  byte_length: number;
  document_author: string | null;
  document_ts: string | null;
}

/** Resources after `after` (or those of `only`), each with its current version's metadata and its document's. */
async function resourceStates(tx: Tx, after: string | null, limit: number, only?: string[]): Promise<ResourceState[]> {
  let query = tx.db
    .selectFrom('resources as r')
    .innerJoin('resource_versions as v', (join) => join.onRef('v.resource_id', '=', 'r.id').onRef('v.version', '=', 'r.current_version'))
    .leftJoin('search_documents as d', (join) => join.on('d.record_key', '=', sql<string>`'resource:' || r.id`))
    .select(['r.id', 'v.mime_type', 'v.created_by as author', 'v.created_ts', 'v.byte_length', 'd.author as document_author', 'd.created_ts as document_ts']);
  if (after !== null) query = query.where('r.id', '>', after);
  if (only) query = query.where('r.id', 'in', only);
  return query.orderBy('r.id').limit(limit).execute();
}

function needsWork(resource: ResourceState): boolean {
  const indexed = resource.document_ts !== null;
  if (!INDEXED_MIME_TYPES.includes(resource.mime_type)) return indexed;
  return !indexed || resource.document_ts !== resource.created_ts || resource.document_author !== resource.author;
}

async function rewriteResources(tx: Tx, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await tx.db
    .selectFrom('resources as r')
    .innerJoin('resource_versions as v', (join) => join.onRef('v.resource_id', '=', 'r.id').onRef('v.version', '=', 'r.current_version'))
    .innerJoin('blobs as b', 'b.digest', 'v.digest')
    .select(['r.id', 'r.space', 'v.name', 'v.mime_type', 'v.created_by', 'v.created_ts', 'b.bytes'])
    .where('r.id', 'in', ids)
    .orderBy('r.id')
    .execute();
  const documents: SearchDocument[] = [];
  for (const row of rows) {
    const document = resourceDocument({
      id: row.id,
      space: row.space,
      name: row.name,
      mime_type: row.mime_type,
      author: row.created_by,
      created_ts: row.created_ts,
      text: utf8.decode(row.bytes),
    });
    if (document) documents.push(document);
    else await removeDocument(tx.db, tx.dialect, recordKey('resource', row.id));
  }
  return (await writeDocuments(tx.db, tx.dialect, documents, 'replace')) + (rows.length - documents.length);
}

/** Waits out a pause unless the backfill is stopped first. */
function pause(ms: number, stopped: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      stopped.removeEventListener('abort', done);
      resolve();
    }
    stopped.addEventListener('abort', done);
  });
}

/** After a failed batch (the database unreachable for a moment), the next try waits this long. */
const RETRY_MS = 5_000;

export interface SearchBackfillDeps {
  db: Database;
  log: Logger;
  metrics: Pick<Metrics, 'gauge'>;
}

/**
 * The backfill as each serving node runs it: started once the node serves,
 * never holding its start, stopped (after the batch in hand) when it closes.
 */
export class SearchBackfill {
  private run: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly deps: SearchBackfillDeps,
    private readonly limits: BackfillLimits = DEFAULT_LIMITS,
  ) {
    deps.metrics.gauge(
      'atrium_search_backfill_remaining',
      'Search backfill: ids of messages and tasks, and Resources, still to look at (0 once each kind is walked).',
      () => backfillRemaining(deps.db),
      ['kind'],
    );
  }

  start(): void {
    this.run ??= this.walk();
  }

  /** Resolves when this node's walk has ended (finished, or stopped). */
  async settled(): Promise<void> {
    await this.run;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.run;
  }

  private async walk(): Promise<void> {
    const going = () => !this.stopping.signal.aborted;
    while (going()) {
      try {
        await extendBackfill(this.deps.db);
        const written = await runBackfill(this.deps.db, this.limits, going);
        if (written > 0) this.deps.log.info({ written }, 'search backfill finished');
        return;
      } catch (err) {
        if (!going()) return;
        this.deps.log.error({ err }, 'search backfill batch failed; trying again');
        await pause(RETRY_MS, this.stopping.signal);
      }
    }
  }
}
