import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * The authorization server's records (docs/oauth.md): clients, pending
 * authorization requests with their codes, grants and tokens (digests only).
 * A grant's tokens resolve like member keys and are kept by each node the same
 * way (src/identity/member-key-cache.ts), so the changes that can turn a token
 * off (a grant or token revoked, rotated or deleted) are announced on
 * PostgreSQL and counted on SQLite, as migrations 0017 and 0018 do for keys.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('registered', 'metadata_document')`))
    .addColumn('client_name', 'text')
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('last_used_ts', 'text', (c) => c.notNull())
    .addColumn('fetched_ts', 'text')
    .execute();
  await db.schema
    .createTable('oauth_authorization_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('expires_ts', 'text', (c) => c.notNull())
    .addColumn('decided_ts', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decision', 'text', (c) => c.check(sql`decision in ('approved', 'denied')`))
    .addColumn('code_hash', 'text', (c) => c.unique())
    .addColumn('code_expires_ts', 'text')
    .addColumn('code_used_ts', 'text')
    .addColumn('grant_id', 'text')
    .execute();
  await db.schema.createIndex('oauth_authorization_requests_expires').on('oauth_authorization_requests').column('expires_ts').execute();
  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('human_handle', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('acting_member', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('spaces', 'text')
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('last_used_ts', 'text')
    .addColumn('revoked_ts', 'text')
    .execute();
  await db.schema.createIndex('oauth_grants_human').on('oauth_grants').columns(['human_handle', 'created_ts']).execute();
  await db.schema
    .createTable('oauth_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('access', 'refresh')`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('expires_ts', 'text', (c) => c.notNull())
    .addColumn('rotated_ts', 'text')
    .addColumn('revoked_ts', 'text')
    .execute();
  await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').column('grant_id').execute();

  if (dialect === 'postgres') {
    // atrium_credentials_changed() is migration 0017's: it announces on the schema's credentials channel.
    await sql`create trigger oauth_grants_credentials_changed after update on oauth_grants for each row
      when (old.revoked_ts is distinct from new.revoked_ts) execute function atrium_credentials_changed()`.execute(db);
    await sql`create trigger oauth_grants_deleted after delete on oauth_grants for each statement execute function atrium_credentials_changed()`.execute(db);
    await sql`create trigger oauth_tokens_credentials_changed after update on oauth_tokens for each row
      when (old.revoked_ts is distinct from new.revoked_ts) execute function atrium_credentials_changed()`.execute(db);
    await sql`create trigger oauth_tokens_deleted after delete on oauth_tokens for each statement execute function atrium_credentials_changed()`.execute(db);
  } else {
    const count = 'update credential_changes set changes = changes + 1 where id = 1;';
    await sql.raw(`create trigger oauth_grants_updated_count after update of revoked_ts on oauth_grants begin ${count} end`).execute(db);
    await sql.raw(`create trigger oauth_grants_deleted_count after delete on oauth_grants begin ${count} end`).execute(db);
    await sql.raw(`create trigger oauth_tokens_updated_count after update of revoked_ts on oauth_tokens begin ${count} end`).execute(db);
    await sql.raw(`create trigger oauth_tokens_deleted_count after delete on oauth_tokens begin ${count} end`).execute(db);
  }
}
