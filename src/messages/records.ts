import type { Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { ConversationSchema, MessageSchema } from './schemas.js';
import type { Reaction } from '../reactions/schemas.js';
import type { MessageTable } from './tables.js';

/** The wire shape of a message, as its schema declares it. */
export type Message = Static<typeof MessageSchema>;

/** `last_message` is named by reference, which has no static type of its own: it is a `Message`. */
export type Conversation = Omit<Static<typeof ConversationSchema>, 'last_message'> & { last_message: Message };

/** `reactions` come from src/reactions/views.ts, loaded for a page of messages at once. */
export function toMessage(row: Selectable<MessageTable>, reactions: Reaction[]): Message {
  const message: Message = {
    id: Number(row.id),
    space: row.space,
    channel: row.channel,
    task: row.task_id === null ? null : Number(row.task_id),
    author: row.author,
    body: row.body,
    mentioned_members: JSON.parse(row.mentioned_members) as string[],
    created_ts: row.created_ts,
    ...threadFields(row),
    ...lifecycleFields(row),
    reactions,
  };
  if (row.direct_member_a !== null && row.direct_member_b !== null) {
    message.direct_members = [row.direct_member_a, row.direct_member_b];
  }
  return message;
}

/** Where a message stands in its conversation's threads: a reply names its root; a top-level message counts its replies. */
function threadFields(row: Selectable<MessageTable>): Pick<Message, 'thread_root' | 'reply_count' | 'last_reply_ts'> {
  if (row.thread_root !== null) return { thread_root: Number(row.thread_root) };
  return { thread_root: null, reply_count: Number(row.reply_count), last_reply_ts: row.last_reply_ts };
}

/** Edits and deletion (docs/messages.md): which version the body is, when it was last edited, and whether it is a tombstone. */
function lifecycleFields(row: Selectable<MessageTable>): Pick<Message, 'version' | 'edited_ts' | 'deleted_ts' | 'deleted_by'> {
  return { version: Number(row.version), edited_ts: row.edited_ts, deleted_ts: row.deleted_ts, deleted_by: row.deleted_by };
}

/** What an event about a message says of where it is: the same fields in every message event. */
export function eventPlacement(message: Message) {
  return { message_id: message.id, channel: message.channel, task: message.task, thread_root: message.thread_root };
}

/** A direct message's events are for its two participants only, in every feed. */
export function eventAudience(message: Message): { audience?: string[] } {
  return message.direct_members ? { audience: [...message.direct_members] } : {};
}

/** The subject naming the message's conversation: its channel or task (a direct conversation has none). */
export function conversationSubject(message: Pick<Message, 'channel' | 'task'>): string[] {
  if (message.channel !== null) return [`channel:${message.channel}`];
  if (message.task !== null) return [`task:${message.task}`];
  return [];
}
