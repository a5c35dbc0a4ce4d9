import type { Kysely } from 'kysely';

/**
 * Deletion (docs/messages.md, "Deletion"): a deleted message stays as a
 * tombstone, in its place in its conversation and thread, saying when and by
 * whom it was deleted; its body, versions and mentions are gone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('deleted_ts', 'text').execute();
  await db.schema.alterTable('messages').addColumn('deleted_by', 'text', (c) => c.references('members.handle')).execute();
}
