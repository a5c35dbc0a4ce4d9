import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * SQLite: a new record's search document waits in `search_pending_documents`
 * until it is moved into the index in a batch (src/search/pending.ts,
 * docs/search-index.md, "New documents on SQLite"). FTS5 writes a new segment
 * of its index at every commit that changed it, and merges segments as they
 * accumulate: at one document a commit that was most of what the index added
 * to a post. A row here is one B-tree insert with no index of its own; the
 * move writes the documents of many commits as one.
 *
 * The post path's statement is unchanged (an insert into the view
 * `search_document_writes`); its trigger now writes here. The trigger that
 * wrote the document itself moves to a second view, `search_document_moves`,
 * which the move inserts into: being the newest write of its record, a
 * pending document replaces any document of the same record.
 *
 * PostgreSQL is unchanged: a GIN index already gathers new entries in a
 * pending list of its own and merges them in bulk.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`create table search_pending_documents (
    id integer primary key autoincrement,
    kind text not null,
    record_key text not null,
    space text not null,
    channel text,
    task_id bigint,
    direct_member_a text,
    direct_member_b text,
    author text not null,
    created_ts text not null,
    title_terms text not null,
    body_terms text not null
  )`.execute(db);
  await sql`create view search_document_moves as
    select kind, record_key, space, channel, task_id, direct_member_a, direct_member_b, author, created_ts, '' as title_terms, '' as body_terms
    from search_documents where 0`.execute(db);
  await sql`create trigger search_document_moves_insert instead of insert on search_document_moves begin
    delete from search_terms where rowid in (select id from search_documents where record_key = new.record_key);
    delete from search_documents where record_key = new.record_key;
    insert into search_documents (kind, record_key, space, channel, task_id, direct_member_a, direct_member_b, author, created_ts)
      values (new.kind, new.record_key, new.space, new.channel, new.task_id, new.direct_member_a, new.direct_member_b, new.author, new.created_ts);
    insert into search_terms (rowid, title, body) values (last_insert_rowid(), new.title_terms, new.body_terms);
  end`.execute(db);
  await sql`drop trigger search_document_writes_insert`.execute(db);
  await sql`create trigger search_document_writes_insert instead of insert on search_document_writes begin
    insert into search_pending_documents (kind, record_key, space, channel, task_id, direct_member_a, direct_member_b, author, created_ts, title_terms, body_terms)
      values (new.kind, new.record_key, new.space, new.channel, new.task_id, new.direct_member_a, new.direct_member_b, new.author, new.created_ts, new.title_terms, new.body_terms);
  end`.execute(db);
}
