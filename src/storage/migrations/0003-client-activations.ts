import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('client_activations')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('poll_secret_hash', 'text', (c) => c.notNull())
    .addColumn('key_salt', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('client_address', 'text', (c) => c.notNull())
    .addColumn('member_handle', 'text', (c) => c.references('members.handle'))
    .addColumn('credential_id', 'text', (c) => c.references('member_keys.id'))
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('expires_ts', 'text', (c) => c.notNull())
    .addColumn('approved_ts', 'text')
    .addColumn('consumed_ts', 'text')
    .addColumn('last_polled_ts', 'text')
    .execute();
  await db.schema
    .createIndex('client_activations_address_idx')
    .on('client_activations')
    .columns(['client_address', 'created_ts'])
    .execute();
}
