/**
 * Read marks (docs/messages.md, "Read marks"): how far a member has read each
 * channel and direct conversation of a Space, kept by the host so every device
 * agrees. A mark is a message id and only moves forward: a lower one, or one
 * past the conversation's newest message, is refused (422) and nothing
 * changes. Marks are the member's own business: no event is appended.
 */
import { sql, type Kysely } from 'kysely';
import { getChannel } from '../channels/records.js';
import type { Actor } from '../identity/actor.js';
import { findMember } from '../members/service.js';
import { requireActiveMember } from '../roles/authority.js';
import { invalid } from '../shared/errors.js';
import { requireRead } from '../spaces/admission.js';
import type { SpaceRecord } from '../spaces/records.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { MAX_UNREAD_COUNTED } from './unread.js';

export interface ReadMark {
  channel: string | null;
  with: string | null;
  message_id: number;
  updated_ts: string;
}

export type Conversation = { channel: string } | { with: string };

const CHANNEL = 'channel:';
const DIRECT = 'direct:';

export async function listReadMarks(db: Kysely<DatabaseSchema>, actor: Actor, space: SpaceRecord): Promise<ReadMark[]> {
  const me = requireActiveMember(actor).member.handle;
  await requireRead(db, actor, space);
  const rows = await db
    .selectFrom('read_marks')
    .select(['conversation', 'message_id', 'updated_ts'])
    .where('member_handle', '=', me)
    .where('space', '=', space.slug)
    .execute();
  // Sorted here: the databases collate punctuation in text differently.
  return rows
    .map((row) => toReadMark(row.conversation, Number(row.message_id), row.updated_ts))
    .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
}

export async function markRead(tx: Tx, actor: Actor, space: SpaceRecord, conversation: Conversation, messageId: number): Promise<ReadMark> {
  const me = requireActiveMember(actor).member.handle;
  await requireRead(tx.db, actor, space);
  const key = await conversationKey(tx.db, me, space, conversation);
  const head = await newestMessage(tx.db, me, space.slug, conversation);
  if (head === null || messageId > head) {
    throw invalid('read_mark_beyond_head', `message ${messageId} is past the newest message of this conversation${head === null ? ' (it has none)' : ` (${head})`}`);
  }
  const ts = tx.now.toISOString();
  // Equal is allowed, so marking the same place twice answers the same mark.
  const row = await tx.db
    .insertInto('read_marks')
    .values({ member_handle: me, space: space.slug, conversation: key, message_id: messageId, updated_ts: ts })
    .onConflict((oc) =>
      oc
        .columns(['member_handle', 'space', 'conversation'])
        .doUpdateSet({ message_id: messageId, updated_ts: sql<string>`case when read_marks.message_id = ${messageId} then read_marks.updated_ts else ${ts} end` })
        .where('read_marks.message_id', '<=', messageId),
    )
    .returning(['message_id', 'updated_ts'])
    .executeTakeFirst();
  if (!row) {
    const current = await tx.db
      .selectFrom('read_marks')
      .select('message_id')
      .where('member_handle', '=', me)
      .where('space', '=', space.slug)
      .where('conversation', '=', key)
      .executeTakeFirstOrThrow();
    throw invalid('read_mark_backwards', `the read mark is at message ${Number(current.message_id)}: it only moves forward`);
  }
  return toReadMark(key, Number(row.message_id), row.updated_ts);
}

/**
 * The caller's unread messages per channel of a Space: others' messages after
 * their mark, counted up to `MAX_UNREAD_COUNTED` each. One statement; each
 * channel's count walks the channel index from the mark and stops at the cap,
 * so its cost does not grow with how far behind the caller is.
 */
export async function unreadByChannel(db: Kysely<DatabaseSchema>, member: string, space: string): Promise<Map<string, number>> {
  const { rows } = await sql<{ name: string; unread: number | string }>`
    select c.name, (
      select count(*) from (
        select 1 from messages m
        where m.space = c.space and m.channel = c.name and m.author <> ${member}
          and m.id > coalesce((
            select r.message_id from read_marks r
            where r.member_handle = ${member} and r.space = c.space and r.conversation = ${CHANNEL} || c.name), 0)
        order by m.id
        limit ${MAX_UNREAD_COUNTED}
      ) unread_messages
    ) as unread
    from channels c
    where c.space = ${space}`.execute(db);
  return new Map(rows.map((row) => [row.name, Number(row.unread)]));
}

async function conversationKey(db: Kysely<DatabaseSchema>, me: string, space: SpaceRecord, conversation: Conversation): Promise<string> {
  if ('channel' in conversation) {
    await getChannel(db, space.slug, conversation.channel);
    return CHANNEL + conversation.channel;
  }
  if (conversation.with === me) throw invalid('validation_failed', 'a direct conversation needs another member: `with` is yourself');
  if (!(await findMember(db, conversation.with))) throw invalid('unknown_reference', `no such member: ${conversation.with}`);
  return DIRECT + conversation.with;
}

async function newestMessage(db: Kysely<DatabaseSchema>, me: string, space: string, conversation: Conversation): Promise<number | null> {
  let query = db.selectFrom('messages').select((eb) => eb.fn.max('id').as('id')).where('space', '=', space);
  if ('channel' in conversation) query = query.where('channel', '=', conversation.channel);
  else {
    const [a, b] = me < conversation.with ? [me, conversation.with] : [conversation.with, me];
    query = query.where('direct_member_a', '=', a).where('direct_member_b', '=', b);
  }
  const row = await query.executeTakeFirst();
  return row?.id === null || row?.id === undefined ? null : Number(row.id);
}

/** Channels by name, then direct conversations by the other member. */
function sortKey(mark: ReadMark): string {
  return mark.channel !== null ? `0${mark.channel}` : `1${mark.with}`;
}

function toReadMark(conversation: string, messageId: number, updatedTs: string): ReadMark {
  const channel = conversation.startsWith(CHANNEL) ? conversation.slice(CHANNEL.length) : null;
  return { channel, with: channel === null ? conversation.slice(DIRECT.length) : null, message_id: messageId, updated_ts: updatedTs };
}
