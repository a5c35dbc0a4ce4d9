import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Each OAuth token carries its own scope (docs/oauth.md, "Tokens"): a refresh
 * may ask for less than its grant allows, and the tokens it answers, and every
 * later refresh of them, hold to that narrower scope. Null on tokens issued
 * before this column (and by nodes of the previous release during a rolling
 * upgrade) means the grant's scope, which is what those tokens always had.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('oauth_tokens').addColumn('scope', 'text').execute();
}
