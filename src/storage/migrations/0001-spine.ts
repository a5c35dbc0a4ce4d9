import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * The spine: members and their credentials, roles, Spaces with admission, and
 * the event log. Typed against Kysely<unknown> so later schema changes cannot
 * break an old migration.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';

  await db.schema
    .createTable('members')
    .addColumn('handle', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('operator', 'text')
    .addColumn('capabilities', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.unique())
    .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('updated_ts', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('members_operator_idx').on('members').column('operator').execute();

  await db.schema
    .createTable('member_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('member_handle', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text')
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('last_used_ts', 'text')
    .addColumn('revoked_ts', 'text')
    .execute();
  await db.schema.createIndex('member_keys_member_idx').on('member_keys').column('member_handle').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('member_handle', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('expires_ts', 'text', (c) => c.notNull())
    .addColumn('revoked_ts', 'text')
    .execute();

  await db.schema
    .createTable('sign_in_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('expires_ts', 'text', (c) => c.notNull())
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('spent_ts', 'text')
    .execute();
  await db.schema.createIndex('sign_in_codes_email_idx').on('sign_in_codes').column('email').execute();

  await db.schema
    .createTable('role_assignments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('member_handle', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('space', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('revoked_by', 'text')
    .addColumn('revoked_ts', 'text')
    .execute();
  await db.schema
    .createIndex('role_assignments_member_idx')
    .on('role_assignments')
    .columns(['member_handle', 'status'])
    .execute();

  await db.schema
    .createTable('spaces')
    .addColumn('id', serial, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull().unique())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('charter', 'text', (c) => c.notNull())
    .addColumn('join_policy', 'text', (c) => c.notNull())
    .addColumn('review_policy', 'text', (c) => c.notNull())
    .addColumn('governance_mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('steward', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('updated_ts', 'text', (c) => c.notNull())
    .addColumn('pinned_resources', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('spaces_status_created_idx').on('spaces').columns(['status', 'created_ts']).execute();

  await db.schema
    .createTable('space_memberships')
    .addColumn('space', 'text', (c) => c.notNull().references('spaces.slug'))
    .addColumn('member_handle', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('updated_ts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('space_memberships_pk', ['space', 'member_handle'])
    .execute();

  // The event log. Cursors come from an always-increasing sequence (AUTOINCREMENT
  // on SQLite never reuses a value; bigserial on PostgreSQL); docs/events.md
  // explains why a cursor is visible in commit order.
  await db.schema
    .createTable('events')
    .addColumn('cursor', serial, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('space', 'text')
    .addColumn('actor', 'text')
    .addColumn('subjects', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_space_cursor_idx').on('events').columns(['space', 'cursor']).execute();

  await db.schema
    .createTable('event_subjects')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('cursor', 'bigint', (c) => c.notNull().references('events.cursor'))
    .addPrimaryKeyConstraint('event_subjects_pk', ['subject', 'cursor'])
    .execute();
}
