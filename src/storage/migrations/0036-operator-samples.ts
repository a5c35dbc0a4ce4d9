import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Each serving node's recent readings, a row every ten seconds (src/operator/,
 * docs/operations.md "The operator's page"): the page plots them for every
 * node of the host, whichever node answers it. The janitor removes rows older
 * than a day.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('operator_samples')
    .addColumn('node', 'text', (c) => c.notNull())
    .addColumn('ts', 'text', (c) => c.notNull())
    .addColumn('sample', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('operator_samples_pk', ['node', 'ts'])
    .execute();
  await db.schema.createIndex('operator_samples_ts_idx').on('operator_samples').column('ts').execute();
}
