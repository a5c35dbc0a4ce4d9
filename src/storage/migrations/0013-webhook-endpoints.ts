import { sql, type Kysely } from 'kysely';

/** Webhook endpoints (docs/webhooks.md): receivers members register and verify. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_member', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('unverified', 'active', 'disabled')`))
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addColumn('verified_ts', 'text')
    .addColumn('deleted_ts', 'text')
    .execute();
  await db.schema.createIndex('webhook_endpoints_owner_idx').on('webhook_endpoints').columns(['owner_member', 'created_ts']).execute();
}
