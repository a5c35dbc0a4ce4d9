import type { Kysely } from 'kysely';

/** Hits counted by the shared rate limiter (src/shared/rate-limit.ts). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_limit_hits')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('hit_ts', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_hits_idx').on('rate_limit_hits').columns(['bucket', 'key_hash', 'hit_ts']).execute();
}
