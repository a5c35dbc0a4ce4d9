import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * A Space's member list is paged by handle within one state (docs/protocol.md,
 * "Space membership"). Keyed by Space and handle alone, a page of the few open requests
 * in a Space of ten thousand admitted members walked past all of them; by
 * Space, state and handle every page reads only its own rows.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('space_memberships_state_idx').on('space_memberships').columns(['space', 'state', 'member_handle']).execute();
}
