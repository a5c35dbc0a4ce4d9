import { sql, type Kysely } from 'kysely';

/**
 * The host's webhook signing keys (docs/webhooks.md): one active key at a
 * time, enforced by a partial unique index, so two nodes starting together
 * cannot both create one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('public_x', 'text', (c) => c.notNull())
    .addColumn('sealed_private', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'retiring')`))
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('retiring_ts', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_signing_keys_one_active')
    .on('webhook_signing_keys')
    .column('status')
    .unique()
    .where(sql<boolean>`status = 'active'`)
    .execute();
}
