/**
 * Reactions (docs/messages.md, "Reactions"): a member marks a message with an
 * emoji, once per emoji. Who may react is who may both read the message and
 * post where it is: any member who may act in the Space for channel and task
 * messages, and only the two participants for a direct message (to anyone else
 * it does not exist, 404). The Space must be active (409). Adding and removing
 * are idempotent: a second PUT or a DELETE of a reaction that is not there
 * changes nothing and appends no event. Events `reaction_added` and
 * `reaction_removed` carry no `member:mentioned:` subject, so they never reach
 * an inbox; a direct message's reactions have the message's audience.
 */
import type { Selectable } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { requireActiveSpace } from '../messages/content.js';
import { toMessage, type Message } from '../messages/records.js';
import type { MessageTable } from '../messages/tables.js';
import { conflict, notFound } from '../shared/errors.js';
import { requireAct, requireRead } from '../spaces/admission.js';
import { getSpace } from '../spaces/service.js';
import type { Tx } from '../storage/database.js';
import { requireEmoji } from './emoji.js';
import { MAX_DISTINCT_REACTIONS } from './schemas.js';
import { loadReactions } from './views.js';

export interface ReactionChange {
  slug: string;
  messageId: number;
  emoji: string;
}

export async function addReaction(tx: Tx, actor: Actor, change: ReactionChange): Promise<Message> {
  const { message, member } = await openReaction(tx, actor, change);
  // Nothing is left to react to; taking one's reaction back from a tombstone stays allowed.
  if (message.deleted_ts !== null) throw conflict('message_deleted', `message ${message.id} was deleted`);
  const mine = await tx.db
    .selectFrom('message_reactions')
    .select('id')
    .where('message_id', '=', message.id)
    .where('emoji', '=', change.emoji)
    .where('member_handle', '=', member)
    .executeTakeFirst();
  if (!mine) {
    await requireRoomFor(tx, message.id, change.emoji);
    await tx.db
      .insertInto('message_reactions')
      .values({ message_id: message.id, emoji: change.emoji, member_handle: member, created_ts: tx.now.toISOString() })
      .execute();
    emitReaction(tx, 'reaction_added', message, member, change.emoji);
  }
  return messageView(tx, message);
}

export async function removeReaction(tx: Tx, actor: Actor, change: ReactionChange): Promise<Message> {
  const { message, member } = await openReaction(tx, actor, change);
  const removed = await tx.db
    .deleteFrom('message_reactions')
    .where('message_id', '=', message.id)
    .where('emoji', '=', change.emoji)
    .where('member_handle', '=', member)
    .executeTakeFirst();
  if (Number(removed.numDeletedRows) > 0) emitReaction(tx, 'reaction_removed', message, member, change.emoji);
  return messageView(tx, message);
}

type MessageRow = Selectable<MessageTable>;

/**
 * Checks everything a reaction needs and holds the message: on PostgreSQL its
 * row is locked until commit, so two members adding the 50th and 51st distinct
 * emoji at once are counted one after the other (SQLite serialises writers).
 * Read access comes before the lookup, so an outsider of an invite Space learns
 * nothing about which message ids exist there.
 */
async function openReaction(tx: Tx, actor: Actor, change: ReactionChange): Promise<{ message: MessageRow; member: string }> {
  requireEmoji(change.emoji);
  const space = await getSpace(tx.db, change.slug);
  await requireRead(tx.db, actor, space);
  const query = tx.db.selectFrom('messages').selectAll().where('id', '=', change.messageId).where('space', '=', space.slug);
  const row = await (tx.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  const member = (await requireAct(tx.db, actor, space)).member.handle;
  if (!row || (row.direct_member_a !== null && row.direct_member_a !== member && row.direct_member_b !== member)) {
    throw notFound('message_not_found', `no message ${change.messageId} in Space ${space.slug}`);
  }
  requireActiveSpace(space);
  return { message: { ...row, id: Number(row.id) }, member };
}

async function requireRoomFor(tx: Tx, messageId: number, emoji: string): Promise<void> {
  const used = await tx.db
    .selectFrom('message_reactions')
    .select('emoji')
    .distinct()
    .where('message_id', '=', messageId)
    .execute();
  if (used.length >= MAX_DISTINCT_REACTIONS && !used.some((r) => r.emoji === emoji)) {
    throw conflict('reaction_limit_reached', `message ${messageId} already has ${MAX_DISTINCT_REACTIONS} different reactions: add to one of them instead`);
  }
}

function emitReaction(tx: Tx, type: 'reaction_added' | 'reaction_removed', message: MessageRow, member: string, emoji: string): void {
  const direct = message.direct_member_a !== null && message.direct_member_b !== null ? [message.direct_member_a, message.direct_member_b] : null;
  tx.emit({
    type,
    space: message.space,
    actor: { handle: member },
    subjects: [
      `space:${message.space}`,
      ...(message.channel !== null ? [`channel:${message.channel}`] : []),
      ...(message.task_id !== null ? [`task:${message.task_id}`] : []),
      `message:${message.id}`,
    ],
    payload: {
      message_id: message.id,
      channel: message.channel,
      task: message.task_id === null ? null : Number(message.task_id),
      emoji,
      ...(direct ? { direct_members: direct } : {}),
    },
    // A direct message's reactions are as private as the message.
    ...(direct ? { audience: direct } : {}),
  });
}

async function messageView(tx: Tx, message: MessageRow): Promise<Message> {
  const reactions = await loadReactions(tx.db, [message.id]);
  return toMessage(message, reactions.get(message.id) ?? []);
}
