import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Reactions to messages (docs/messages.md, "Reactions"): one row per member,
 * message and emoji, the unique key being the rule. Rows go with their message.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  await db.schema
    .createTable('message_reactions')
    .addColumn('id', serial, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('message_id', 'bigint', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('emoji', 'text', (c) => c.notNull())
    .addColumn('member_handle', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addUniqueConstraint('message_reactions_one_per_member', ['message_id', 'emoji', 'member_handle'])
    .execute();
}
