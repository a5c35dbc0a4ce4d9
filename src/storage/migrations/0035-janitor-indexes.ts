import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * The janitor (src/janitor/, docs/operations.md "Growth") finds what expired
 * by time, in batches, on a host that may hold years of records: each sweep
 * walks an index on the time it filters by instead of the whole table, and an
 * orphaned blob is told from a named one by an index on the versions' digest.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('rate_limit_hits_ts_idx').on('rate_limit_hits').column('hit_ts').execute();
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_ts').execute();
  await db.schema.createIndex('sign_in_codes_expires_idx').on('sign_in_codes').column('expires_ts').execute();
  await db.schema.createIndex('client_activations_expires_idx').on('client_activations').column('expires_ts').execute();
  await db.schema.createIndex('oauth_tokens_expires_idx').on('oauth_tokens').column('expires_ts').execute();
  await db.schema
    .createIndex('webhook_deliveries_finished_idx')
    .on('webhook_deliveries')
    .column('updated_ts')
    .where(sql<boolean>`status <> 'pending'`)
    .execute();
  await db.schema.createIndex('resource_versions_digest_idx').on('resource_versions').column('digest').execute();
  await db.schema.createIndex('blobs_created_idx').on('blobs').column('created_ts').execute();
}
