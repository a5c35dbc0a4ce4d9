import type { Kysely } from 'kysely';

/**
 * Threads (docs/messages.md, "Threads"): a reply names its thread's root, a
 * top-level message of the same conversation. The root keeps its reply count
 * and the time of its newest reply, updated in each reply's transaction, so a
 * conversation's listing shows them without counting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('thread_root', 'bigint', (c) => c.references('messages.id')).execute();
  await db.schema.alterTable('messages').addColumn('reply_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('messages').addColumn('last_reply_ts', 'text').execute();
  await db.schema.createIndex('messages_thread_idx').on('messages').columns(['thread_root', 'id']).execute();
}
