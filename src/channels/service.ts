import type { Kysely } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { requireActiveSpace } from '../messages/content.js';
import { conflict } from '../shared/errors.js';
import { unreadByChannel } from '../read-marks/service.js';
import { requireAct, requireRead } from '../spaces/admission.js';
import type { SpaceRecord } from '../spaces/records.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { isUniqueViolation } from '../storage/unique-violation.js';
import { findChannel, getChannel, toChannel, type Channel } from './records.js';

/**
 * Channels of a Space, by name. Listing follows read access (protocol: Space
 * admission). A member caller also gets each channel's `unread` count.
 */
export async function listChannels(db: Kysely<DatabaseSchema>, actor: Actor, space: SpaceRecord): Promise<Channel[]> {
  await requireRead(db, actor, space);
  const rows = await db.selectFrom('channels').selectAll().where('space', '=', space.slug).orderBy('name').execute();
  if (actor.kind !== 'member') return rows.map(toChannel);
  const unread = await unreadByChannel(db, actor.member.handle, space.slug);
  return rows.map((row) => ({ ...toChannel(row), unread: unread.get(row.name) ?? 0 }));
}

/**
 * Creating a channel is a content write: the caller must be able to act in the
 * Space and the Space must be active (protocol: Space status, 409 otherwise). Names are
 * unique per Space; the primary key settles two concurrent creations.
 */
export async function createChannel(tx: Tx, actor: Actor, space: SpaceRecord, input: { name: string; topic?: string }): Promise<Channel> {
  const creator = (await requireAct(tx.db, actor, space)).member.handle;
  requireActiveSpace(space);
  const topic = input.topic ?? '';
  if (await findChannel(tx.db, space.slug, input.name)) throw conflict('channel_exists', `channel ${input.name} exists in Space ${space.slug}`);
  try {
    await tx.db
      .insertInto('channels')
      .values({ space: space.slug, name: input.name, topic, created_by: creator, created_ts: tx.now.toISOString() })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('channel_exists', `channel ${input.name} exists in Space ${space.slug}`);
    throw err;
  }
  tx.emit({
    type: 'channel_created',
    space: space.slug,
    actor: { handle: creator },
    subjects: [`space:${space.slug}`, `channel:${input.name}`],
    payload: { name: input.name, topic },
  });
  return getChannel(tx.db, space.slug, input.name);
}
