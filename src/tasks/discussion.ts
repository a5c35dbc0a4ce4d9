import type { Kysely } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { listMessages, postMessage, type Message, type MessagePage, type PreparedBody } from '../messages/service.js';
import { notFound } from '../shared/errors.js';
import { requireRead } from '../spaces/admission.js';
import type { SpaceRecord } from '../spaces/records.js';
import { getSpace } from '../spaces/service.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * Task discussion (protocol: Messages): messages about a task, which supply context
 * but never change its state (protocol: core rule 2). The messages capability
 * stores them, resolves mentions and emits `message_posted` with a `task:<id>`
 * subject; this module only makes sure the task is this Space's. A task's
 * discussion stays open in every state: finished work is still worth talking about.
 */

/**
 * Read access is checked before the task lookup, so an outsider of an invite
 * Space learns nothing about which task ids exist there.
 */
async function taskSpace(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, id: number): Promise<SpaceRecord> {
  const space = await getSpace(db, slug);
  await requireRead(db, actor, space);
  const task = await db.selectFrom('tasks').select('id').where('id', '=', id).where('space', '=', slug).executeTakeFirst();
  if (!task) throw notFound('task_not_found', `no task ${id} in Space ${slug}`);
  return space;
}

export async function discussTask(tx: Tx, actor: Actor, slug: string, id: number, body: PreparedBody, threadRoot?: number): Promise<Message> {
  await taskSpace(tx.db, actor, slug, id);
  return postMessage(tx, actor, slug, { task: id }, body, threadRoot);
}

export async function taskDiscussion(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, id: number, page: MessagePage): Promise<Message[]> {
  const space = await taskSpace(db, actor, slug, id);
  return listMessages(db, actor, space, { task: id }, page);
}
