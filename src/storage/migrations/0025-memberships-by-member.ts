import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * `space_memberships` is keyed by Space, then member. A member's search reads
 * the Spaces they are admitted to, which without this was a scan of every
 * admission on the host (docs/search.md, "Costs").
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('space_memberships_member_idx').on('space_memberships').column('member_handle').execute();
}
