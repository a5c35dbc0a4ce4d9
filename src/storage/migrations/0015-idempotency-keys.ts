import { sql, type Kysely } from 'kysely';

/**
 * Idempotency keys (docs/idempotency.md): the first answer to a request sent
 * with an `Idempotency-Key`, kept so a retry gets it again. The primary key is
 * what makes the reservation race-free: of two first requests, only one insert
 * can win.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('running', 'done')`))
    .addColumn('status', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['owner', 'method', 'path', 'key'])
    .execute();
  // The sweep of expired records reads them oldest first.
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_ts').execute();
}
