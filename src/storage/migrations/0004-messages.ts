import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * Channels, messages (channel, direct and task-discussion messages in one
 * table), and event audiences: a direct message's event is readable only by its
 * two participants (docs/messages.md), so the event log learns to restrict an
 * event to named members.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';

  await db.schema
    .createTable('channels')
    .addColumn('space', 'text', (c) => c.notNull().references('spaces.slug'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('members.handle'))
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('channels_pk', ['space', 'name'])
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', serial, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('space', 'text', (c) => c.notNull().references('spaces.slug'))
    .addColumn('channel', 'text')
    .addColumn('task_id', 'bigint')
    // A direct conversation: the two participants, in sorted order.
    .addColumn('direct_member_a', 'text', (c) => c.references('members.handle'))
    .addColumn('direct_member_b', 'text', (c) => c.references('members.handle'))
    .addColumn('author', 'text', (c) => c.notNull().references('members.handle'))
    .addColumn('body', 'text', (c) => c.notNull())
    // JSON array of handles, resolved once when posted: history is never reparsed.
    .addColumn('mentioned_members', 'text', (c) => c.notNull())
    .addColumn('created_ts', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('messages_channel_fk', ['space', 'channel'], 'channels', ['space', 'name'])
    .addCheckConstraint(
      'messages_one_target',
      sql`(case when channel is null then 0 else 1 end)
        + (case when task_id is null then 0 else 1 end)
        + (case when direct_member_a is null then 0 else 1 end) = 1
        and (direct_member_a is null) = (direct_member_b is null)`,
    )
    .execute();
  await db.schema.createIndex('messages_channel_idx').on('messages').columns(['space', 'channel', 'id']).execute();
  await db.schema.createIndex('messages_task_idx').on('messages').columns(['space', 'task_id', 'id']).execute();
  await db.schema
    .createIndex('messages_direct_idx')
    .on('messages')
    .columns(['space', 'direct_member_a', 'direct_member_b', 'id'])
    .execute();

  // NULL: every reader of the feed may see the event. Otherwise a JSON array of
  // the only members who may, with one event_audience row each for the feed query.
  await db.schema.alterTable('events').addColumn('audience', 'text').execute();
  await db.schema
    .createTable('event_audience')
    .addColumn('cursor', 'bigint', (c) => c.notNull().references('events.cursor'))
    .addColumn('member', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_audience_pk', ['cursor', 'member'])
    .execute();
}
