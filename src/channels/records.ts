import type { Kysely, Selectable } from 'kysely';
import { notFound } from '../shared/errors.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { ChannelTable } from './tables.js';

/** The wire shape of a channel (src/channels/schemas.ts). */
export interface Channel {
  space: string;
  name: string;
  topic: string;
  created_by: string | null;
  created_ts: string;
}

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
