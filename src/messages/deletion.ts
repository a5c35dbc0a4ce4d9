/**
 * Deletion (docs/messages.md, "Deletion"). The author, or an Owner/Host of the
 * Space, deletes a message: it stays as a tombstone in its place (its thread
 * keeps its shape), and what it said is redacted everywhere Atrium kept it in
 * the same transaction: its body and mentions, its earlier versions, the body
 * of every earlier event about it that kept a copy (their envelopes stay), and
 * its search document. The events that join their body by reference
 * (src/events/stored-once.ts) find none from then on, and every node drops the
 * feed pages it kept that hold the message when its tail sees
 * `message_deleted` (src/events/page-cache.ts).
 */
import { sql } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { isOwnerOrHost } from '../roles/authority.js';
import { recordKey, removeDocument } from '../search/index-writes.js';
import { conflict, forbidden } from '../shared/errors.js';
import { BODY_BY_REFERENCE } from '../events/stored-once.js';
import { loadReactions } from '../reactions/views.js';
import { getSpace } from '../spaces/service.js';
import type { Tx } from '../storage/database.js';
import { requireNotDeleted } from './edits.js';
import { conversationSubject, eventAudience, eventPlacement, toMessage, type Message } from './records.js';
import { readableMessage } from './service.js';

export async function deleteMessage(tx: Tx, actor: Actor, slug: string, id: number): Promise<Message> {
  const space = await getSpace(tx.db, slug);
  const row = await readableMessage(tx.db, actor, space, id);
  // The steward key acts for the Space's Owners/Hosts and is nobody: the tombstone's `deleted_by` is then null, and the event says `via: steward_key`.
  const caller = actor.kind === 'member' ? actor.member.handle : null;
  const steward = actor.kind === 'steward';
  if (!steward && (caller === null || (caller !== row.author && !(await isOwnerOrHost(tx.db, actor, { space: space.slug }))))) {
    throw forbidden('not_message_author', `only ${row.author} or an Owner/Host of Space ${space.slug} may delete message ${id}`);
  }
  requireNotDeleted(row);
  // The check and the write are one statement: of two deletions, the second finds nothing to delete.
  const deleted = await tx.db
    .updateTable('messages')
    .set({ body: '', mentioned_members: '[]', deleted_ts: tx.now.toISOString(), deleted_by: caller })
    .where('id', '=', row.id)
    .where('deleted_ts', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!deleted) throw conflict('message_deleted', `message ${id} was deleted`);
  await tx.db.deleteFrom('message_versions').where('message_id', '=', row.id).execute();
  await redactEvents(tx, row.id);
  await removeDocument(tx.db, tx.dialect, recordKey('message', row.id));

  // Reactions stay: who reacted to what was said is the Space's history, like the envelopes of its events.
  const message = toMessage(deleted, (await loadReactions(tx.db, [Number(deleted.id)])).get(Number(deleted.id)) ?? []);
  tx.emit({
    type: 'message_deleted',
    space: space.slug,
    actor: caller === null ? { steward: true } : { handle: caller },
    subjects: [`space:${space.slug}`, ...conversationSubject(message), `message:${message.id}`],
    payload: {
      ...eventPlacement(message),
      author: message.author,
      deleted_by: caller,
      ...(message.direct_members ? { direct_members: [...message.direct_members] } : {}),
    },
    ...eventAudience(message),
  });
  return message;
}

/**
 * Takes the body out of the payload of every earlier event about the message
 * that kept a copy: events written before bodies were stored by reference, or
 * by a node of such a release. Found through the `message:<id>` subject both
 * message events carry; on PostgreSQL also those still queued for numbering.
 * The envelopes stay: that the message existed, where and by whom, is history.
 */
async function redactEvents(tx: Tx, messageId: number): Promise<void> {
  const numbered = await tx.db
    .selectFrom('events')
    .innerJoin('event_subjects', 'event_subjects.cursor', 'events.cursor')
    .select(['events.cursor', 'events.payload'])
    .where('event_subjects.subject', '=', `message:${messageId}`)
    .where('events.type', 'in', [...BODY_BY_REFERENCE])
    .execute();
  for (const event of numbered) {
    const redacted = withoutBody(event.payload);
    if (redacted !== undefined) await tx.db.updateTable('events').set({ payload: redacted }).where('cursor', '=', event.cursor).execute();
  }
  if (tx.dialect !== 'postgres') return;
  const queued = await tx.db
    .selectFrom('pending_events')
    .select(['id', 'payload'])
    .where('type', 'in', [...BODY_BY_REFERENCE])
    .where(sql<number>`(payload::json ->> 'message_id')::bigint`, '=', messageId)
    .execute();
  for (const event of queued) {
    const redacted = withoutBody(event.payload);
    if (redacted !== undefined) await tx.db.updateTable('pending_events').set({ payload: redacted }).where('id', '=', event.id).execute();
  }
}

/** The payload JSON without its body, or undefined when it has none to take out. */
function withoutBody(payload: string): string | undefined {
  const parsed = JSON.parse(payload) as Record<string, unknown>;
  if (!('body' in parsed)) return undefined;
  delete parsed.body;
  return JSON.stringify(parsed);
}
