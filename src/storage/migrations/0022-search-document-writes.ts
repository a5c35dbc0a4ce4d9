import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * SQLite: a new record's search document and its FTS5 terms in one
 * statement (src/search/index-writes.ts). On the post path each statement is
 * a round through Kysely and the driver, a share of what indexing adds to a
 * post worth saving: an insert into this view, whose trigger writes both.
 * Nothing is ever read from it. PostgreSQL writes a document's row and terms
 * in one insert already.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`create view search_document_writes as
    select kind, record_key, space, channel, task_id, direct_member_a, direct_member_b, author, created_ts, '' as title_terms, '' as body_terms
    from search_documents where 0`.execute(db);
  await sql`create trigger search_document_writes_insert instead of insert on search_document_writes begin
    insert into search_documents (kind, record_key, space, channel, task_id, direct_member_a, direct_member_b, author, created_ts)
      values (new.kind, new.record_key, new.space, new.channel, new.task_id, new.direct_member_a, new.direct_member_b, new.author, new.created_ts);
    insert into search_terms (rowid, title, body) values (last_insert_rowid(), new.title_terms, new.body_terms);
  end`.execute(db);
}
