import { CompiledQuery, sql, type Generated, type Insertable, type Kysely } from 'kysely';
import type { Dialect } from '../storage/dialect.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { movePendingDocuments } from './pending.js';
import { documentTerms, ftsColumn, tsvectorLiteral, type DocumentTerms } from './document-terms.js';
import type { SearchDocumentTable, SearchKind } from './tables.js';
import { PreparedStatement } from '../storage/prepared.js';

/**
 * Keeping the search index (docs/search-index.md): each write that creates a
 * searchable record calls one of these in its own transaction, so the record
 * and its document commit together or not at all, and the next search on any
 * node finds it. What a call costs: one insert on PostgreSQL (row and terms
 * together); on SQLite one statement, whose trigger writes the document to
 * the pending table that searches empty into the index before reading
 * (src/search/pending.ts).
 *
 * The inputs name only the fields indexed, so the capabilities that call in
 * pass their rows as they have them, and this folder imports no service.
 */

export interface IndexedMessage {
  id: number;
  space: string;
  channel: string | null;
  task_id: number | null;
  direct_member_a: string | null;
  direct_member_b: string | null;
  author: string;
  body: string;
  created_ts: string;
}

export interface IndexedTask {
  id: number;
  space: string;
  title: string;
  body: string;
  created_by: string;
  created_ts: string;
}

/** A Resource as its current version has it: the version's name, type, author and time, and its text. */
export interface IndexedResource {
  id: string;
  space: string;
  name: string;
  mime_type: string;
  author: string;
  created_ts: string;
  text: string;
}

/**
 * The Resource versions that are searched: Markdown text. Every version is
 * Markdown today; should another type be allowed, a Resource whose current
 * version is of it leaves the index (its new version's write removes its
 * document) and returns when a Markdown version is current again.
 */
export const INDEXED_MIME_TYPES: readonly string[] = ['text/markdown'];

export function recordKey(kind: SearchKind, id: number | string): string {
  return `${kind}:${id}`;
}

/** A row of `search_documents` and the text its terms come from. */
export interface SearchDocument {
  row: Insertable<SearchDocumentTable>;
  title: string;
  body: string;
}

export function messageDocument(message: IndexedMessage): SearchDocument {
  return {
    row: {
      kind: 'message',
      record_key: recordKey('message', message.id),
      space: message.space,
      channel: message.channel,
      task_id: message.task_id,
      direct_member_a: message.direct_member_a,
      direct_member_b: message.direct_member_b,
      author: message.author,
      created_ts: message.created_ts,
    },
    title: '',
    body: message.body,
  };
}

export function taskDocument(task: IndexedTask): SearchDocument {
  return {
    row: { ...unplaced(task.space), kind: 'task', record_key: recordKey('task', task.id), author: task.created_by, created_ts: task.created_ts },
    title: task.title,
    body: task.body,
  };
}

/** Undefined when the current version is not searched (INDEXED_MIME_TYPES). */
export function resourceDocument(resource: IndexedResource): SearchDocument | undefined {
  if (!INDEXED_MIME_TYPES.includes(resource.mime_type)) return undefined;
  return {
    row: {
      ...unplaced(resource.space),
      kind: 'resource',
      record_key: recordKey('resource', resource.id),
      author: resource.author,
      created_ts: resource.created_ts,
    },
    title: resource.name,
    body: resource.text,
  };
}

function unplaced(space: string) {
  return { space, channel: null, task_id: null, direct_member_a: null, direct_member_b: null };
}

/**
 * ATRIUM_SEARCH_INDEX=off (docs/configuration.md): writes leave the index as it
 * is, so a benchmark can weigh what indexing adds to a write on the same data.
 * Process-wide, set by the composition root from each context's configuration:
 * in-process tests all leave it on, and one that needs it off runs a server in a
 * process of its own.
 */
let writesIndexed = true;

export function setWritesIndexed(on: boolean): void {
  writesIndexed = on;
}

/**
 * A message just posted (channel, direct or task discussion). `documentId`:
 * the document's id, drawn already (PostgreSQL, with the post's first read:
 * DRAW_DOCUMENT_ID), so the document can be written late.
 */
export async function indexMessage(tx: Tx, message: IndexedMessage, documentId?: number): Promise<void> {
  if (!writesIndexed) return;
  const document = messageDocument(message);
  if (documentId !== undefined) document.row = { ...document.row, id: documentId };
  await writeNew(tx, document);
}

/**
 * A new document's id, drawn in a statement of the record's own (PostgreSQL).
 * Ids rise with records' age (DocumentIds), and a document written late
 * (`Tx.later`) could not keep that order by itself: the parts of one
 * statement run in no set order, so several documents written late in one
 * transaction would take their ids in any order.
 */
export const DRAW_DOCUMENT_ID = sql<string>`nextval('search_documents_id_seq')`;

/** A message whose body an edit changed: its document says what the new body says. */
export async function reindexMessage(tx: Tx, message: IndexedMessage): Promise<void> {
  if (!writesIndexed) return;
  await writeDocuments(tx.db, tx.dialect, [messageDocument(message)], 'replace');
}

/** A task just created, of any kind (pin proposals are tasks too). */
export async function indexTask(tx: Tx, task: IndexedTask): Promise<void> {
  if (!writesIndexed) return;
  await writeNew(tx, taskDocument(task));
}

/**
 * A new record's document: one statement on either database. On SQLite it
 * goes through the view `search_document_writes`, whose trigger writes it to
 * `search_pending_documents` (migration 0029), from where it is moved into the
 * index with others (src/search/pending.ts). That statement is written once, not
 * built per post: Kysely's `sql` template parses each of its eleven values
 * into a query tree and compiles it again at every call, a tenth of what the
 * index adds to a post.
 */
async function writeNew(tx: Tx, document: SearchDocument): Promise<void> {
  if (tx.dialect === 'postgres') {
    const row = postgresRow(document);
    // With its id drawn, nothing about a new document depends on when it is written: it goes with the unit's last statement.
    if (row.id !== undefined) tx.later(WRITE_DOCUMENTS.fail, { rows: [row] });
    else await WRITE_DOCUMENTS.fail.execute(tx.db, { rows: [row] });
    return;
  }
  const terms = documentTerms(document.title, document.body);
  const row = document.row;
  await tx.db.executeQuery(
    CompiledQuery.raw(SQLITE_WRITE_NEW, [
      row.kind,
      row.record_key,
      row.space,
      row.channel ?? null,
      row.task_id ?? null,
      row.direct_member_a ?? null,
      row.direct_member_b ?? null,
      row.author,
      row.created_ts,
      ftsColumn(terms.title),
      ftsColumn(terms.body),
    ]),
  );
}

const SQLITE_WRITE_NEW = `insert into search_document_writes
  (kind, record_key, space, channel, task_id, direct_member_a, direct_member_b, author, created_ts, title_terms, body_terms)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * A Resource just created or given a new version: its document now says what
 * the new current version says. A version that is not searched removes it.
 * Concurrent versions of one Resource write here in the order they took the
 * Resource's row (addVersion's UPDATE), so the last to commit is the current one.
 */
export async function indexResource(tx: Tx, resource: IndexedResource, opts: { late?: boolean } = {}): Promise<void> {
  if (!writesIndexed) return;
  const document = resourceDocument(resource);
  if (!document) await removeDocument(tx.db, tx.dialect, recordKey('resource', resource.id));
  // `late`: nothing in the unit reads the document back. On PostgreSQL it then goes with the unit's last
  // statement: a Resource's one document keeps its id when replaced, or takes the next if it had none.
  else if (opts.late && tx.dialect === 'postgres') tx.later(WRITE_DOCUMENTS.replace, { rows: [postgresRow(document)] });
  else await writeDocuments(tx.db, tx.dialect, [document], 'replace');
}

/**
 * What a document whose record is already indexed does: `fail` (a new record
 * never is: a conflict is a fault), `ignore` (the backfill: whoever indexed it
 * first wins: a record that changed since wrote its new document itself,
 * in the change's transaction) or `replace` (a Resource's new version, a
 * message's edit).
 */
export type OnIndexed = 'fail' | 'ignore' | 'replace';

/** Rows per statement, and the terms' text per statement, when the backfill writes many. */
const ROWS_PER_STATEMENT = 100;
const TERM_CHARS_PER_STATEMENT = 4_000_000;

/**
 * Which ids new documents take. Relevance ranks the newest matches by
 * document id (docs/search.md, "Ranking, order and pages"), so ids must rise
 * with the records' age: `next` for a record written now; `below` for the
 * backfill's walk down through older records, newest first: each batch takes
 * ids below every document's, so the further back the walk goes the lower
 * they are (negative: every document indexed as it was written keeps a higher
 * id). With the next ids instead, the walk's oldest records would have held the
 * highest, and been ranked as the newest.
 */
export type DocumentIds = 'next' | 'below';

/** Writes documents and their terms; answers how many were written (not ignored). */
export async function writeDocuments(
  db: Kysely<DatabaseSchema>,
  dialect: Dialect,
  documents: SearchDocument[],
  onIndexed: OnIndexed,
  ids: DocumentIds = 'next',
): Promise<number> {
  // A pending document of the same record is older than this one: it goes in first, so this replaces it (or is ignored beside it).
  if (dialect === 'sqlite') await movePendingDocuments(db);
  let written = 0;
  let chunk: Array<{ document: SearchDocument; terms: DocumentTerms }> = [];
  let chars = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    if (ids === 'below') await numberBelow(db, dialect, chunk);
    written += dialect === 'postgres' ? await writePostgres(db, chunk, onIndexed) : await writeSqlite(db, chunk, onIndexed);
    chunk = [];
    chars = 0;
  };
  for (const document of documents) {
    const terms = documentTerms(document.title, document.body);
    chunk.push({ document, terms });
    chars += terms.title.length + terms.body.length;
    if (chunk.length >= ROWS_PER_STATEMENT || chars >= TERM_CHARS_PER_STATEMENT) await flush();
  }
  await flush();
  return written;
}

/**
 * Gives each document of `chunk`, in order, an id below every document's. On
 * PostgreSQL from a descending sequence (migration 0030), as nodes may walk
 * messages and tasks at once; SQLite has one writer.
 */
async function numberBelow(db: Kysely<DatabaseSchema>, dialect: Dialect, chunk: Array<{ document: SearchDocument }>): Promise<void> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ id: number }>`select nextval('search_backfill_document_ids') as id from generate_series(1, ${chunk.length})`.execute(db);
    const taken = rows.map((row) => Number(row.id)).sort((a, b) => b - a);
    chunk.forEach(({ document }, i) => (document.row = { ...document.row, id: taken[i]! }));
    return;
  }
  const { low } = await db
    .selectFrom('search_documents')
    .select((eb) => eb.fn.min<number | null>('id').as('low'))
    .executeTakeFirstOrThrow();
  const first = Math.min(Number(low ?? 0), 0) - 1;
  chunk.forEach(({ document }, i) => (document.row = { ...document.row, id: first - i }));
}

/** A document's row as PostgreSQL stores it: with its terms as a tsvector literal. */
function postgresRow(document: SearchDocument): DocumentRow {
  return { ...document.row, terms: tsvectorLiteral(documentTerms(document.title, document.body)) };
}

async function writePostgres(db: Kysely<DatabaseSchema>, chunk: Array<{ document: SearchDocument; terms: DocumentTerms }>, onIndexed: OnIndexed): Promise<number> {
  const rows = chunk.map(({ document, terms }) => ({ ...document.row, terms: tsvectorLiteral(terms) }));
  return (await WRITE_DOCUMENTS[onIndexed].rows(db, { rows })).length;
}

async function writeSqlite(db: Kysely<DatabaseSchema>, chunk: Array<{ document: SearchDocument; terms: DocumentTerms }>, onIndexed: OnIndexed): Promise<number> {
  // Only the rows written come back (an ignored one does not), each with its id: the rowid of its terms.
  const rows = await WRITE_DOCUMENTS[onIndexed].rows(db, { rows: chunk.map(({ document }) => document.row) });
  if (rows.length === 0) return 0;
  const termsOf = new Map(chunk.map(({ document, terms }) => [document.row.record_key, terms]));
  const written = rows.map((row) => {
    const terms = termsOf.get(row.record_key)!;
    return { id: row.id, title: ftsColumn(terms.title), body: ftsColumn(terms.body) };
  });
  await (onIndexed === 'replace' ? REPLACE_TERMS : INSERT_TERMS).execute(db, { rows: written });
  return rows.length;
}

/** A document row; on PostgreSQL with its terms as a tsvector literal (SQLite keeps terms in `search_terms`). */
type DocumentRow = Insertable<SearchDocumentTable> & { terms?: string };

/**
 * Built once for each way of meeting an indexed record and each number of rows
 * (storage/prepared.ts): a Resource's new version writes its document here.
 * Only the rows written come back, each with its id.
 */
const WRITE_DOCUMENTS = Object.fromEntries(
  (['fail', 'ignore', 'replace'] as const).map((onIndexed) => [
    onIndexed,
    new PreparedStatement((db, { rows }: { rows: DocumentRow[] }) => {
      // The tsvector column is PostgreSQL's alone (SQLite has no such column), so only this view of the table names it.
      const insert = db
        .withTables<{ search_documents: { terms: Generated<string> } }>()
        .insertInto('search_documents')
        .values(rows.map(({ terms, ...row }) => (terms === undefined ? row : { ...row, terms: sql<string>`${terms}::tsvector` })));
      const withTerms = rows.some((row) => row.terms !== undefined);
      const done =
        onIndexed === 'fail'
          ? insert
          : insert.onConflict((oc) =>
              onIndexed === 'ignore'
                ? oc.column('record_key').doNothing()
                : oc.column('record_key').doUpdateSet((eb) => ({
                    space: eb.ref('excluded.space'),
                    author: eb.ref('excluded.author'),
                    created_ts: eb.ref('excluded.created_ts'),
                    ...(withTerms ? { terms: eb.ref('excluded.terms') } : {}),
                  })),
            );
      return done.returning(['id', 'record_key']);
    }),
  ]),
) as Record<OnIndexed, PreparedStatement<{ rows: DocumentRow[] }, { id: number; record_key: string }>>;

type TermsRows = { rows: Array<{ id: number; title: string; body: string }> };
const termsValues = (rows: TermsRows['rows']) => sql.join(rows.map((row) => sql`(${row.id}, ${row.title}, ${row.body})`));
const INSERT_TERMS = new PreparedStatement((_db, { rows }: TermsRows) => sql`insert into search_terms (rowid, title, body) values ${termsValues(rows)}`);
// OR REPLACE: a replaced document's old terms go (a contentless_delete table supports it).
const REPLACE_TERMS = new PreparedStatement((_db, { rows }: TermsRows) => sql`insert or replace into search_terms (rowid, title, body) values ${termsValues(rows)}`);

/** Removes a record's document and its terms, if it has one. */
export async function removeDocument(db: Kysely<DatabaseSchema>, dialect: Dialect, key: string): Promise<void> {
  // The record's document may still be pending: moved first, it is removed with the rest.
  if (dialect === 'sqlite') await movePendingDocuments(db);
  const removed = await db.deleteFrom('search_documents').where('record_key', '=', key).returning('id').execute();
  if (dialect === 'sqlite') for (const { id } of removed) await sql`delete from search_terms where rowid = ${id}`.execute(db);
}
