import type { Kysely } from 'kysely';

/**
 * Read marks (docs/messages.md, "Read marks"): one row per member and
 * conversation of a Space, holding the message id read up to. Kept by the host
 * rather than by each client, so what was read on one device is read on all.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('read_marks')
    .addColumn('member_handle', 'text', (c) => c.notNull().references('members.handle').onDelete('cascade'))
    .addColumn('space', 'text', (c) => c.notNull().references('spaces.slug'))
    .addColumn('conversation', 'text', (c) => c.notNull())
    .addColumn('message_id', 'bigint', (c) => c.notNull())
    .addColumn('updated_ts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('read_marks_pk', ['member_handle', 'space', 'conversation'])
    .execute();
}
