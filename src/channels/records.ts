import type { Static } from '@sinclair/typebox';
import type { Kysely, Selectable } from 'kysely';
import { notFound } from '../shared/errors.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { ChannelSchema } from './schemas.js';
import type { ChannelTable } from './tables.js';

/** The wire shape of a channel, as its schema declares it. */
export type Channel = Static<typeof ChannelSchema>;

export function toChannel(row: Selectable<ChannelTable>): Channel {
  return { space: row.space, name: row.name, topic: row.topic, created_by: row.created_by, created_ts: row.created_ts };
}

export async function findChannel(db: Kysely<DatabaseSchema>, space: string, name: string): Promise<Channel | undefined> {
  const row = await db.selectFrom('channels').selectAll().where('space', '=', space).where('name', '=', name).executeTakeFirst();
  return row ? toChannel(row) : undefined;
}

export async function getChannel(db: Kysely<DatabaseSchema>, space: string, name: string): Promise<Channel> {
  const channel = await findChannel(db, space, name);
  if (!channel) throw notFound('channel_not_found', `no channel ${name} in Space ${space}`);
  return channel;
}
