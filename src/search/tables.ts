import type { Generated } from 'kysely';
import type { SearchKind } from './schemas.js';

/** What one search document indexes: a message (channel, direct or task discussion), a task, or a Markdown Resource. */
export type { SearchKind };

/**
 * One row per searchable record (docs/search-index.md). It holds what a search
 * filters and orders by, never the text: snippets are read from the record
 * itself. The terms live beside it: on SQLite in the FTS5 table `search_terms`
 * (rowid = `id`), on PostgreSQL in the `terms tsvector` column, which Kysely's
 * view leaves out because only `src/search/` writes or reads it, through `sql`.
 */
export interface SearchDocumentTable {
  id: Generated<number>;
  kind: SearchKind;
  /** `message:<id>`, `task:<id>` or `resource:<res_id>`: unique, so a record is indexed once. */
  record_key: string;
  space: string;
  channel: string | null;
  /** The task a discussion message belongs to. */
  task_id: number | null;
  /** A direct message's two members, sorted as the messages table sorts them. */
  direct_member_a: string | null;
  direct_member_b: string | null;
  /** The message's author, the task's creator, the author of the Resource's current version. */
  author: string;
  /** When the message was posted, the task created, the Resource's current version created. */
  created_ts: string;
}

/**
 * How far the backfill of one kind has come (src/search/backfill.ts). Messages
 * and tasks are walked by id: every id in (`walked_low`, `walked_high`] has
 * been looked at, and the walk ends when it spans (0, `bound`]. Resource ids
 * are random, so Resources are walked in id order from `after_key`.
 */
export interface SearchBackfillTable {
  kind: SearchKind;
  bound: number | null;
  walked_low: number | null;
  walked_high: number | null;
  after_key: string | null;
  /** Set when the walk finished; cleared when a node's start gives it more to look at. */
  finished_ts: string | null;
}

export interface SearchTables {
  search_documents: SearchDocumentTable;
  search_backfill: SearchBackfillTable;
}
