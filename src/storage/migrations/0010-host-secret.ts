import type { Kysely } from 'kysely';

/**
 * Client addresses are kept as HMAC digests under a per-host secret
 * (src/shared/client-address.ts), and a client activation remembers the poll
 * interval it has been told to keep (it grows when polled too fast).
 * Rate-limit hits recorded under the old unkeyed digest can never match a new
 * one; they are at most an hour old, so they are simply dropped.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('host_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('client_activations').addColumn('poll_interval_seconds', 'integer').execute();
  await db.deleteFrom('rate_limit_hits' as never).execute();
}
