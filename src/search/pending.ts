import { CompiledQuery, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * New documents on SQLite (docs/search-index.md, "New documents on SQLite").
 * A record created in a transaction writes its document to
 * `search_pending_documents` in that transaction; this moves them into the
 * index (`search_documents` and the FTS5 terms), many commits' worth at a
 * time. The index is exact all the same: whatever reads or changes it moves
 * what is pending first, in its own transaction, so nothing a committed write
 * indexed is ever missed:
 *
 * - a search, before it reads (`movePendingBeforeReading`);
 * - a write that replaces or removes a document (an edit, a deletion, a
 *   Resource's new version, the backfill), inside its transaction
 *   (src/search/index-writes.ts);
 * - and in the background, shortly after commits, so the table stays short
 *   (`PendingDocumentMover`).
 *
 * PostgreSQL has no such table: its writes index themselves directly.
 */

/** Pending documents moved per statement: bounds one statement's work, not the move's. */
const MOVED_PER_STATEMENT = 2_000;

const LAST_PENDING = 'select max(id) as last from (select id from search_pending_documents order by id limit ?)';
const MOVE = `insert into search_document_moves
  (kind, record_key, space, channel, task_id, direct_member_a, direct_member_b, author, created_ts, title_terms, body_terms)
  select kind, record_key, space, channel, task_id, direct_member_a, direct_member_b, author, created_ts, title_terms, body_terms
  from search_pending_documents where id <= ? order by id`;
const FORGET = 'delete from search_pending_documents where id <= ?';
const ANY_PENDING = 'select 1 as pending from search_pending_documents limit 1';

/**
 * Moves every pending document into the index, oldest first; answers how
 * many. `db` is a transaction: a document leaves the pending table in the
 * statement pair that writes it to the index.
 */
export async function movePendingDocuments(db: Kysely<DatabaseSchema>): Promise<number> {
  let moved = 0;
  for (;;) {
    const { rows } = await db.executeQuery<{ last: number | null }>(CompiledQuery.raw(LAST_PENDING, [MOVED_PER_STATEMENT]));
    const last = rows[0]?.last ?? null;
    if (last === null) return moved;
    const result = await db.executeQuery(CompiledQuery.raw(MOVE, [last]));
    await db.executeQuery(CompiledQuery.raw(FORGET, [last]));
    moved += Number(result.numAffectedRows ?? 0);
  }
}

/** Whether any document waits: read without a transaction, so a search with nothing pending writes nothing. */
async function anyPending(db: Database): Promise<boolean> {
  const { rows } = await db.kysely.executeQuery(CompiledQuery.raw(ANY_PENDING));
  return rows.length > 0;
}

/** Before a search reads the index on SQLite: every document committed so far is in it. */
export async function movePendingBeforeReading(db: Database): Promise<void> {
  if (db.dialect !== 'sqlite' || !(await anyPending(db))) return;
  await db.transaction(async (tx) => {
    await movePendingDocuments(tx.db);
  });
}

/**
 * How long after a commit the background move waits. Moving costs less per
 * document the more move together (with better-sqlite3 alone, a million
 * documents: about 165 µs more than no index at 15 a move, 140 at 40, 90 at
 * 150), and a search moves whatever is pending before it reads, so this is
 * also about the most a search may have to move first: at 1,000 posts a
 * second, 100 documents, a few milliseconds.
 */
export const MOVE_DELAY_MS = 100;

/** A serving node's background move (SQLite only): after commits, once per MOVE_DELAY_MS at most. */
export class PendingDocumentMover {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** A commit arrived while a move ran: its documents may have missed it. */
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
  ) {}

  /** Starts listening for commits, and moves what a previous run of the node left pending. */
  start(): void {
    if (this.db.dialect !== 'sqlite') return;
    this.db.onCommitted(() => this.soon());
    this.soon();
  }

  private soon(): void {
    if (this.running) this.again = true;
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.move().finally(() => {
        this.timer = undefined;
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.soon();
        }
      });
    }, MOVE_DELAY_MS);
    this.timer.unref();
  }

  private async move(): Promise<void> {
    try {
      await movePendingBeforeReading(this.db);
    } catch (err) {
      // A search moves what is pending before it reads, so nothing is lost: the next commit tries again.
      this.log.error({ err }, 'moving pending search documents into the index failed');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer && !this.running) clearTimeout(this.timer);
    await this.running;
  }
}
