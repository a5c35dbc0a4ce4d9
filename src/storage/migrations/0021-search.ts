import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * The search index (docs/search-index.md): one `search_documents` row per
 * searchable record and its terms, in FTS5 on SQLite and in a tsvector column
 * with a GIN index on PostgreSQL. Existing records are not indexed here: this
 * runs in one transaction, and indexing a large host in it would hold every
 * writer for its whole length. It records instead how far back the backfill
 * (src/search/backfill.ts) must go; records written from now on index
 * themselves.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  await db.schema
    .createTable('search_documents')
    // autoincrement: an id is never reused, so a row deleted and another added can never inherit its FTS5 terms.
    .addColumn('id', serial, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('record_key', 'text', (c) => c.notNull().unique())
    .addColumn('space', 'text', (c) => c.notNull())
    .addColumn('channel', 'text')
    .addColumn('task_id', 'bigint')
    .addColumn('direct_member_a', 'text')
    .addColumn('direct_member_b', 'text')
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .execute();
  // What a search narrows by besides its terms: the Spaces the caller may read
  // (and `in:`), `from:`, and a member's direct messages, each newest first.
  // Direct-message indexes are partial: channel posts, most of the writes, pay nothing for them.
  await db.schema.createIndex('search_documents_space_idx').on('search_documents').columns(['space', 'created_ts', 'id']).execute();
  await db.schema.createIndex('search_documents_author_idx').on('search_documents').columns(['author', 'created_ts', 'id']).execute();
  for (const member of ['direct_member_a', 'direct_member_b'] as const) {
    await db.schema
      .createIndex(`search_documents_${member}_idx`)
      .on('search_documents')
      .columns([member, 'created_ts', 'id'])
      .where(sql.ref(member), 'is not', null)
      .execute();
  }

  if (dialect === 'sqlite') {
    // Contentless: the text stays in its record. The terms arrive already
    // folded and separated by spaces (src/search/document-terms.ts), so the
    // tokenizer must only split at spaces and change nothing: `ascii` keeps
    // every non-ASCII character inside its token, where `unicode61` would
    // split at combining marks and fold some letters a second time.
    await sql`create virtual table search_terms using fts5(title, body, content='', contentless_delete=1, tokenize='ascii')`.execute(db);
  } else {
    await sql`alter table search_documents add column terms tsvector not null`.execute(db);
    await sql`create index search_documents_terms_idx on search_documents using gin (terms)`.execute(db);
  }

  await db.schema
    .createTable('search_backfill')
    .addColumn('kind', 'text', (c) => c.primaryKey())
    .addColumn('bound', 'bigint')
    .addColumn('walked_low', 'bigint')
    .addColumn('walked_high', 'bigint')
    .addColumn('after_key', 'text')
    .addColumn('finished_ts', 'text')
    .execute();
  // Messages and tasks: everything up to the highest id now, newest first.
  // Resources have random ids: the backfill walks them all.
  for (const [kind, table] of [
    ['message', 'messages'],
    ['task', 'tasks'],
  ] as const) {
    await sql`insert into search_backfill (kind, bound, walked_low, walked_high)
      select ${kind}, b.bound, b.bound, b.bound from (select coalesce(max(id), 0) as bound from ${sql.table(table)}) b`.execute(db);
  }
  await sql`insert into search_backfill (kind) values ('resource')`.execute(db);
}
