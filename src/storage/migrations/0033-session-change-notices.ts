import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Sessions are kept like member keys (src/identity/member-key-cache.ts), so a
 * node must learn at once when one is signed out or removed, whoever writes
 * it: on PostgreSQL the triggers of migration 0017 announce it on the same
 * channel (the function is 0017's), on SQLite those of 0018 count it. Starting
 * a session changes nothing kept: an unknown token is never kept.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`create trigger sessions_credentials_changed after update or delete on sessions for each statement execute function atrium_credentials_changed()`.execute(db);
    return;
  }
  const count = 'update credential_changes set changes = changes + 1 where id = 1;';
  await sql.raw(`create trigger sessions_updated_count after update on sessions begin ${count} end`).execute(db);
  await sql.raw(`create trigger sessions_deleted_count after delete on sessions begin ${count} end`).execute(db);
}
