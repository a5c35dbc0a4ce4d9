import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Indexes a search's reads want (docs/search.md, "Costs").
 *
 * - `space_memberships` is keyed by Space, then member; a member's search reads
 *   the Spaces they are admitted to, which without an index by member scanned
 *   every admission on the host.
 * - A search of operators alone orders by time. The Space, author and direct
 *   pair indexes serve `in:`, `from:` and `is:dm`; `kind:`, `before:` and
 *   `after:` alone had none, and sorted every readable document for a page of
 *   20 (`kind:resource`: 0.7 s on a million messages). By time, newest first,
 *   a page stops once it holds 20.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('space_memberships_member_idx').on('space_memberships').column('member_handle').execute();
  await db.schema.createIndex('search_documents_created_idx').on('search_documents').columns(['created_ts', 'id']).execute();
}
