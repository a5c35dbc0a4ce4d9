import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * SQLite's counterpart of migration 0017. A SQLite host is one node, so it
 * needs no announcements, but it still may keep member-key resolutions
 * (src/identity/member-key-cache.ts) only if it learns of every change to
 * what they carry, including changes written by another process on the same
 * file (`atrium admin`, or an operator with the sqlite3 shell). Triggers count
 * those changes in a one-row table, in the writing transaction itself, and
 * each keyed request reads the count before it trusts what it kept. Plain SQL
 * triggers, so every tool that writes the file keeps the count. A key's
 * `last_used_ts` refresh counts nothing.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`create table credential_changes (id integer primary key check (id = 1), changes integer not null)`.execute(db);
  await sql`insert into credential_changes (id, changes) values (1, 0)`.execute(db);
  const count = 'update credential_changes set changes = changes + 1 where id = 1;';
  await sql.raw(`create trigger members_updated_count after update on members begin ${count} end`).execute(db);
  await sql.raw(`create trigger members_deleted_count after delete on members begin ${count} end`).execute(db);
  await sql
    .raw(`create trigger member_keys_updated_count after update of revoked_ts, member_handle, key_hash on member_keys begin ${count} end`)
    .execute(db);
  await sql.raw(`create trigger member_keys_deleted_count after delete on member_keys begin ${count} end`).execute(db);
}
