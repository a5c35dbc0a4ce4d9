import type { Kysely } from 'kysely';

/**
 * How far each member has read their inbox (docs/messages.md, "Inbox"): one
 * row per member, a cursor that only moves forward. Kept by the host rather
 * than by each client, so what was read on one device is read on all.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbox_reads')
    .addColumn('member_handle', 'text', (c) => c.primaryKey().references('members.handle').onDelete('cascade'))
    .addColumn('cursor', 'bigint', (c) => c.notNull())
    .addColumn('updated_ts', 'text', (c) => c.notNull())
    .execute();
}
