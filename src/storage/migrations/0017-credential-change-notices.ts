import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * On PostgreSQL, every node may keep the members its member keys resolved to
 * (src/identity/member-key-cache.ts), so it must hear at once when one of
 * those answers changes on any node. Triggers announce it, so no write site
 * can forget to: a member row updated or deleted (status, operator, anything
 * a resolution carries), a key revoked, moved or deleted. A key's
 * `last_used_ts` refresh announces nothing. The channel is fixed here from the
 * schema the host runs in (as the event log's channels are), so a session with
 * another search path still announces on the right one. SQLite has one node
 * and keeps nothing, so it needs none of this.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]!.schema;
  const channel = credentialsChannel(schema);
  await sql
    .raw(
      `create function atrium_credentials_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('${channel}', '');
  return null;
end $$`,
    )
    .execute(db);
  await sql`create trigger members_credentials_changed after update or delete on members for each statement execute function atrium_credentials_changed()`.execute(db);
  await sql`create trigger member_keys_credentials_changed after update on member_keys for each row
    when (old.revoked_ts is distinct from new.revoked_ts or old.member_handle is distinct from new.member_handle or old.key_hash is distinct from new.key_hash)
    execute function atrium_credentials_changed()`.execute(db);
  await sql`create trigger member_keys_deleted after delete on member_keys for each statement execute function atrium_credentials_changed()`.execute(db);
}

/** The event log listens on this name (src/events/log.ts, topicChannel), derived from the schema the same way. */
function credentialsChannel(schema: string): string {
  return `atrium_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}_credentials`;
}
