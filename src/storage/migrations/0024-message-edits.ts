import type { Kysely } from 'kysely';

/**
 * Edits (docs/messages.md, "Edits"): a message's current body stays in its
 * row, which gains a version and the time of its last edit; each body an edit
 * replaces moves to `message_versions`, with the mentions it had. So every
 * body is stored once, and an event that names a version of a message
 * (`message_posted` names version 1) can always be joined to what that version
 * said (docs/events.md, "What an event stores").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('version', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('messages').addColumn('edited_ts', 'text').execute();
  await db.schema
    .createTable('message_versions')
    .addColumn('message_id', 'bigint', (c) => c.notNull().references('messages.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    // JSON array of handles: the mentions that version had.
    .addColumn('mentioned_members', 'text', (c) => c.notNull())
    // When that version was written: the message's posting, or the edit that made it.
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('message_versions_pk', ['message_id', 'version'])
    .execute();
}
