/**
 * Messages (protocol: Messages; docs/messages.md). One message is posted to exactly
 * one target: a channel, a direct conversation with one other member, or a
 * task's discussion. Other capabilities post and list through this API:
 *
 *   prepareBody(ctx.mentions, text): Promise<PreparedBody>   (outside any transaction)
 *   postMessage(tx, actor, slug, target, body: PreparedBody, threadRoot?): Promise<Message>
 *   listMessages(db, actor, space, target, { before?, limit?, thread_root? }): Promise<Message[]>
 *
 *   target: { channel: name } | { direct: other member's handle } | { task: id }
 *
 * Both do everything except the caller's own target checks. `postMessage`
 * checks the Space action gate (`requireAct`, 401/403), that the Space is active
 * (409) and the body (422), resolves mentions, stores the message and emits
 * `message_posted` in the caller's transaction. `listMessages` checks read access
 * and answers newest first (`before`: exclusive id; `limit` default 50, max 200).
 * A `{ channel }` target must exist (404) and a `{ direct }` one must be a member
 * who can act in the Space (unknown 422, unable 403; listing: unknown 404). A
 * `{ task }` target is not checked here at all: the tasks capability checks that
 * the task exists in this Space and that the caller may discuss it, then calls
 * in. Request and response schemas to reuse: src/messages/schemas.ts.
 */
import { sql, type ExpressionBuilder, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import { getChannel } from '../channels/records.js';
import type { Actor, MemberActor } from '../identity/actor.js';
import { findMember } from '../members/service.js';
import { requireActiveMember } from '../roles/authority.js';
import { AtriumError, forbidden, invalid, notFound } from '../shared/errors.js';
import { requireAct, requireRead } from '../spaces/admission.js';
import type { MembershipState } from '../spaces/tables.js';
import { getSpace } from '../spaces/service.js';
import { DRAW_DOCUMENT_ID, indexMessage } from '../search/index-writes.js';
import { toSpaceRecord, type SpaceRecord } from '../spaces/records.js';
import { loadReactions } from '../reactions/views.js';
import type { Tx } from '../storage/database.js';
import { PreparedStatement } from '../storage/prepared.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { checkBody, requireActiveSpace } from './content.js';
import type { MentionParser } from './mention-parser.js';
import { plainMentionCandidates } from './mentions.js';
import { resolveMentions } from './resolve-mentions.js';
import { eventPlacement, toMessage, type Conversation, type Message } from './records.js';
import type { MessageTable } from './tables.js';
import { DEFAULT_MESSAGE_LIMIT, MAX_MESSAGE_LIMIT, type ConversationPage, type MessagePage } from './schemas.js';

export type { Conversation, Message } from './records.js';
export type { MessagePage } from './schemas.js';

export type MessageTarget = { channel: string } | { direct: string } | { task: number };

/** Where a message goes, as stored. */
interface Placement {
  channel: string | null;
  task_id: number | null;
  direct: [string, string] | null;
  mentioned: string[];
  subject: string | null;
}

/**
 * A body checked and searched for mention candidates before any transaction
 * opens: the Markdown parse can be slow on hostile input, and must neither hold
 * a database transaction nor block the event loop (mention-parser.ts).
 */
export interface PreparedBody {
  text: string;
  candidates: string[];
}

/** `owner` is whose body this is: the mention parser's unit of fairness. */
export async function prepareBody(parser: MentionParser, text: string, owner?: string): Promise<PreparedBody> {
  checkBody(text);
  if (!mayMention(text)) return { text, candidates: [] };
  return { text, candidates: plainMentionCandidates(text) ?? (await parser.candidates(text, owner)) };
}

/**
 * Only a literal `@` can start a mention (escaped and character-reference
 * spellings never notify: mentions.ts), so a body without one needs no parse.
 */
function mayMention(text: string): boolean {
  return text.includes('@');
}

/**
 * Checks the cheap things first (the Space exists, the caller may act there),
 * so only members who could post at all get a Markdown parse, then prepares the
 * body. Called outside any transaction; postMessage checks again inside it,
 * since admission may change in between.
 */
export async function prepareMessage(
  ctx: { db: { kysely: Kysely<DatabaseSchema> }; mentions: MentionParser },
  actor: Actor,
  slug: string,
  text: string,
): Promise<PreparedBody> {
  // postMessage checks all of this (and the body) again inside its transaction; these checks only keep the parse for those who could post.
  if (!mayMention(text)) return { text, candidates: [] };
  // Plain prose needs no parse (mentions.ts), so no worker: nothing to keep from those who cannot post.
  const plain = plainMentionCandidates(text);
  if (plain) {
    checkBody(text);
    return { text, candidates: plain };
  }
  const { member } = await requireAct(ctx.db.kysely, actor, await getSpace(ctx.db.kysely, slug));
  return prepareBody(ctx.mentions, text, member.handle);
}

export async function postMessage(
  tx: Tx,
  actor: Actor,
  slug: string,
  target: MessageTarget,
  prepared: PreparedBody,
  threadRoot?: number,
): Promise<Message> {
  const body = prepared.text;
  const participants = actor.kind === 'member' ? [actor.member.handle] : [];
  if ('direct' in target) participants.push(target.direct);
  const opened = await openPost(tx, slug, participants, 'channel' in target ? target.channel : undefined, 'direct' in target ? [] : prepared.candidates);
  const { space, held, channelFound, nextId, nextDocumentId } = opened;
  const known = actor.kind === 'member' ? { state: held.get(actor.member.handle) } : undefined;
  const author = (await requireAct(tx.db, actor, space, known)).member.handle;
  checkBody(body);
  requireActiveSpace(space);
  const placement = await place(tx, author, space, target, channelFound, () => mentionedIn(tx, prepared.candidates, author, opened.activeCandidates));
  const threadAuthors = threadRoot === undefined ? [] : await joinThread(tx, space.slug, placement, threadRoot);
  // A reply notifies the thread's earlier authors as a mention would: through their inbox.
  const notified = [...new Set([...placement.mentioned, ...threadAuthors])].filter((handle) => handle !== author);

  const row = await insertMessage(tx, nextId, {
    space: space.slug,
    channel: placement.channel,
    task_id: placement.task_id,
    direct_member_a: placement.direct?.[0] ?? null,
    direct_member_b: placement.direct?.[1] ?? null,
    author,
    body,
    mentioned_members: JSON.stringify(placement.mentioned),
    created_ts: tx.now.toISOString(),
    thread_root: threadRoot ?? null,
  });
  await indexMessage(tx, row, nextDocumentId);
  const message = toMessage(row, []);

  tx.emit({
    type: 'message_posted',
    space: space.slug,
    actor: { handle: author },
    subjects: [
      `space:${space.slug}`,
      ...(placement.subject ? [placement.subject] : []),
      `message:${message.id}`,
      ...notified.map((handle) => `member:mentioned:${handle}`),
    ],
    payload: {
      ...eventPlacement(message),
      author,
      body,
      mentioned_members: placement.mentioned,
      ...(placement.direct ? { direct_members: [...placement.direct] } : {}),
    },
    // A direct message is readable by its two participants only, in every feed.
    ...(placement.direct ? { audience: [...placement.direct] } : {}),
  });
  return message;
}

/**
 * The members a body mentions, as resolveMentions answers: from what the
 * post's first read found when it could, so a mention costs no statement of its own.
 */
async function mentionedIn(tx: Tx, candidates: readonly string[], author: string, active: Set<string> | undefined): Promise<string[]> {
  if (active === undefined) return resolveMentions(tx.db, candidates, author);
  return candidates.filter((handle) => handle !== author && active.has(handle));
}

async function place(
  tx: Tx,
  author: string,
  space: SpaceRecord,
  target: MessageTarget,
  channelFound: boolean,
  mentions: () => Promise<string[]>,
): Promise<Placement> {
  if ('channel' in target) {
    if (!channelFound) throw notFound('channel_not_found', `no channel ${target.channel} in Space ${space.slug}`);
    const mentioned = await mentions();
    return { channel: target.channel, task_id: null, direct: null, mentioned, subject: `channel:${target.channel}` };
  }
  if ('task' in target) {
    const mentioned = await mentions();
    return { channel: null, task_id: target.task, direct: null, mentioned, subject: `task:${target.task}` };
  }
  const other = target.direct;
  if (other === author) throw invalid('validation_failed', 'a direct message needs another member: `to` is yourself');
  await requireRecipient(tx.db, other, space);
  // Only the other participant is notified: a third member named in the body
  // could not read the message, so naming them notifies nobody (docs/messages.md).
  return { channel: null, task_id: null, direct: conversation(author, other), mentioned: [other], subject: null };
}

/** The messages of one conversation: the channel, the task's discussion, or the two members' direct conversation. */
function inConversation(eb: ExpressionBuilder<DatabaseSchema, 'messages'>, placement: Pick<Placement, 'channel' | 'task_id' | 'direct'>) {
  if (placement.channel !== null) return eb('channel', '=', placement.channel);
  if (placement.task_id !== null) return eb('task_id', '=', placement.task_id);
  const [a, b] = placement.direct!;
  return eb.and([eb('direct_member_a', '=', a), eb('direct_member_b', '=', b)]);
}

/**
 * A reply joins the thread of a top-level message of its own conversation
 * (422 otherwise: a reply to a reply, another conversation's message, or none).
 * One statement checks the root and counts the reply on it; on PostgreSQL it
 * also holds the root's row, so concurrent replies count one after another.
 * Answers the thread's authors so far, whom the reply notifies.
 */
async function joinThread(tx: Tx, space: string, placement: Placement, root: number): Promise<string[]> {
  const counted = await tx.db
    .updateTable('messages')
    .set((eb) => ({ reply_count: eb('reply_count', '+', 1), last_reply_ts: tx.now.toISOString() }))
    .where('id', '=', root)
    .where('space', '=', space)
    .where('thread_root', 'is', null)
    .where((eb) => inConversation(eb, placement))
    .returning('id')
    .executeTakeFirst();
  if (!counted) throw invalid('thread_root_invalid', `thread_root ${root} is not a top-level message of this conversation`);
  const authors = await tx.db
    .selectFrom('messages')
    .select('author')
    .where((eb) => eb.or([eb('id', '=', root), eb('thread_root', '=', root)]))
    .orderBy('id')
    .execute();
  return authors.map((row) => row.author);
}

/**
 * Both participants of a direct message must be able to act in the Space. The
 * recipient is checked with the same gate as a caller, as if signed in: a
 * session is the credential that carries every power a member has.
 */
export async function requireRecipient(db: Kysely<DatabaseSchema>, handle: string, space: SpaceRecord): Promise<void> {
  const member = await findMember(db, handle);
  if (!member) throw invalid('unknown_reference', `no such member: ${handle}`);
  const recipient: MemberActor = { kind: 'member', member, credential: { type: 'session', id: 'recipient' } };
  try {
    await requireAct(db, recipient, space);
  } catch (err) {
    if (err instanceof AtriumError && (err.status === 401 || err.status === 403)) {
      throw forbidden('recipient_not_admitted', `${handle} cannot act in Space ${space.slug}, so cannot receive direct messages there`);
    }
    throw err;
  }
}

type NewMessage = Omit<Selectable<MessageTable>, 'id' | 'reply_count' | 'version' | 'last_reply_ts' | 'edited_ts' | 'deleted_ts' | 'deleted_by'>;

/**
 * On SQLite the insert answers the row. On PostgreSQL the id was drawn with
 * the post's first read, so the row is known here, and the insert is sent with
 * the post's search document and event as one statement (storage/together.ts):
 * two round trips fewer. The columns it leaves out take their defaults, as below.
 */
async function insertMessage(tx: Tx, id: number | undefined, message: NewMessage): Promise<Selectable<MessageTable>> {
  if (id === undefined) {
    const row = await INSERT_MESSAGE.first(tx.db, message);
    if (!row) throw new Error('the message insert returned no row');
    return row;
  }
  tx.later(INSERT_MESSAGE_WITH_ID, { id, ...message });
  return { id, ...message, reply_count: 0, version: 1, last_reply_ts: null, edited_ts: null, deleted_ts: null, deleted_by: null };
}

const INSERT_MESSAGE = new PreparedStatement((db, row: NewMessage) => db.insertInto('messages').values(row).returningAll());
const INSERT_MESSAGE_WITH_ID = new PreparedStatement((db, row: NewMessage & { id: number }) => db.insertInto('messages').values(row));

/** Mention candidates resolved in a post's first read; a body naming more resolves them in batches of its own (resolveMentions). */
const CANDIDATES_IN_OPEN_POST = 32;

type OpenPostArgs = { slug: string; handles: string[]; channel: string | undefined; candidates: string[] };

const OPEN_POST = new PreparedStatement((db, { slug, handles, channel, candidates }: OpenPostArgs, dialect) =>
  db
    .selectFrom('spaces as s')
    .selectAll('s')
    .select((eb) => [
      handles.length === 0
        ? sql<null>`null`.as('held')
        : dialect === 'postgres'
          ? // Locked in handle order, as every writer that holds several membership rows does.
            sql<Array<[string, MembershipState]> | null>`(select json_agg(json_build_array(m.member_handle, m.state)) from (
            select member_handle, state from space_memberships where space = s.slug and member_handle in (${sql.join(handles)})
            order by member_handle for share) m)`.as('held')
          : sql<string>`(select json_group_array(json_array(m.member_handle, m.state)) from space_memberships m
            where m.space = s.slug and m.member_handle in (${sql.join(handles)}))`.as('held'),
      channel === undefined
        ? sql<boolean>`true`.as('channel_found')
        : eb.exists(eb.selectFrom('channels as c').select('c.name').whereRef('c.space', '=', 's.slug').where('c.name', '=', channel)).as('channel_found'),
      // Which of the body's candidates are active members: a mention notifies only those (resolve-mentions.ts).
      candidates.length === 0
        ? sql<null>`null`.as('active_candidates')
        : dialect === 'postgres'
          ? sql<string[] | null>`(select json_agg(m.handle) from members m where m.handle in (${sql.join(candidates)}) and m.status = ${'active'})`.as('active_candidates')
          : sql<string | null>`(select json_group_array(m.handle) from members m where m.handle in (${sql.join(candidates)}) and m.status = ${'active'})`.as('active_candidates'),
      // PostgreSQL: the ids of the message and its search document, drawn now, so both inserts can go with the post's last statement (insertMessage).
      dialect === 'postgres' ? sql<string>`nextval('messages_id_seq')`.as('next_id') : sql<null>`null`.as('next_id'),
      dialect === 'postgres' ? DRAW_DOCUMENT_ID.as('next_document_id') : sql<null>`null`.as('next_document_id'),
    ])
    .where('s.slug', '=', slug),
);

/**
 * What a post needs before it writes: the Space (404 if none), whether the
 * target channel exists, and the participants' membership rows, in one
 * statement: a post is a handful of small statements, and on both databases
 * each one's fixed cost (a round trip on PostgreSQL, the query builder and
 * driver on SQLite) outweighs its work (docs/messages.md, "What a post costs").
 * On PostgreSQL the membership rows are held until commit, so a removal from
 * the Space cannot commit between the admission check and the message (it
 * waits, and the message is ordered before it); SQLite serialises writers already.
 */
async function openPost(
  tx: Tx,
  slug: string,
  participants: string[],
  channel: string | undefined,
  candidates: readonly string[],
): Promise<OpenedPost> {
  const resolved = candidates.length <= CANDIDATES_IN_OPEN_POST ? [...new Set(candidates)].sort() : [];
  const row = await OPEN_POST.first(tx.db, { slug, handles: [...participants].sort(), channel, candidates: resolved });
  if (!row) throw notFound('space_not_found', `no such Space: ${slug}`);
  const { held, channel_found, active_candidates, next_id, next_document_id, ...space } = row;
  return {
    space: toSpaceRecord(space),
    held: new Map(fromJson<Array<[string, MembershipState]>>(held) ?? []),
    channelFound: Boolean(channel_found),
    activeCandidates: candidates.length > CANDIDATES_IN_OPEN_POST ? undefined : new Set(fromJson<string[]>(active_candidates) ?? []),
    nextId: next_id === null ? undefined : Number(next_id),
    nextDocumentId: next_document_id === null ? undefined : Number(next_document_id),
  };
}

interface OpenedPost {
  space: SpaceRecord;
  held: Map<string, MembershipState>;
  channelFound: boolean;
  /** The body's mention candidates that are active members; undefined when there were too many to read here. */
  activeCandidates: Set<string> | undefined;
  nextId: number | undefined;
  nextDocumentId: number | undefined;
}

/** SQLite hands JSON back as text, PostgreSQL as values. */
function fromJson<T>(value: T | string | null): T | null {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

function conversation(a: string, b: string): [string, string] {
  return a < b ? [a, b] : [b, a];
}

export async function listMessages(
  db: Kysely<DatabaseSchema>,
  actor: Actor,
  space: SpaceRecord,
  target: MessageTarget,
  page: MessagePage = {},
): Promise<Message[]> {
  let query = db.selectFrom('messages').selectAll().where('space', '=', space.slug);
  if ('direct' in target) {
    const me = requireActiveMember(actor).member.handle;
    await requireRead(db, actor, space);
    if (!(await findMember(db, target.direct))) throw notFound('member_not_found', `no such member: ${target.direct}`);
    if (target.direct === me) throw invalid('validation_failed', 'a direct conversation needs another member');
    const [a, b] = conversation(me, target.direct);
    query = query.where('direct_member_a', '=', a).where('direct_member_b', '=', b);
  } else {
    await requireRead(db, actor, space);
    if ('channel' in target) {
      await getChannel(db, space.slug, target.channel);
      query = query.where('channel', '=', target.channel);
    } else {
      query = query.where('task_id', '=', target.task);
    }
  }
  const root = page.thread_root;
  if (root !== undefined && !(await query.where('id', '=', root).where('thread_root', 'is', null).executeTakeFirst())) {
    throw invalid('thread_root_invalid', `thread_root ${root} is not a top-level message of this conversation`);
  }
  // A conversation lists its top-level messages; a thread, its root and replies.
  query = root === undefined ? query.where('thread_root', 'is', null) : query.where((eb) => eb.or([eb('id', '=', root), eb('thread_root', '=', root)]));
  return pageOf(db, query, page);
}

async function pageOf(
  db: Kysely<DatabaseSchema>,
  query: SelectQueryBuilder<DatabaseSchema, 'messages', Selectable<MessageTable>>,
  page: MessagePage,
): Promise<Message[]> {
  if (page.before !== undefined) query = query.where('id', '<', page.before);
  const limit = Math.min(page.limit ?? DEFAULT_MESSAGE_LIMIT, MAX_MESSAGE_LIMIT);
  return messageViews(db, await query.orderBy('id', 'desc').limit(limit).execute());
}

/**
 * One message of the Space that the caller may read, as stored: a Space
 * reader's for channel and task messages, a participant's for a direct one.
 * Read access is checked first, so an outsider of an invite Space learns
 * nothing about which ids exist there; a direct message of others is 404.
 */
export async function readableMessage(db: Kysely<DatabaseSchema>, actor: Actor, space: SpaceRecord, id: number): Promise<Selectable<MessageTable>> {
  await requireRead(db, actor, space);
  const row = await db.selectFrom('messages').selectAll().where('id', '=', id).where('space', '=', space.slug).executeTakeFirst();
  const reader = actor.kind === 'member' ? actor.member.handle : undefined;
  if (!row || (row.direct_member_a !== null && reader !== row.direct_member_a && reader !== row.direct_member_b)) {
    throw notFound('message_not_found', `no message ${id} in Space ${space.slug}`);
  }
  return row;
}

/** The thread a message belongs to (its own, or its root's): the root, and a page of replies, newest first. */
export async function readThread(
  db: Kysely<DatabaseSchema>,
  actor: Actor,
  space: SpaceRecord,
  id: number,
  page: Omit<MessagePage, 'thread_root'> = {},
): Promise<{ root: Message; replies: Message[] }> {
  const found = await readableMessage(db, actor, space, id);
  const rootId = found.thread_root === null ? found.id : Number(found.thread_root);
  const root = rootId === found.id ? found : await db.selectFrom('messages').selectAll().where('id', '=', rootId).executeTakeFirstOrThrow();
  const replies = await pageOf(db, db.selectFrom('messages').selectAll().where('thread_root', '=', rootId), page);
  return { root: (await messageViews(db, [root]))[0]!, replies };
}

/** Stored messages as their views show them, with their reactions. */
async function messageViews(db: Kysely<DatabaseSchema>, rows: Array<Selectable<MessageTable>>): Promise<Message[]> {
  const reactions = await loadReactions(db, rows.map((row) => Number(row.id)));
  return rows.map((row) => toMessage(row, reactions.get(Number(row.id)) ?? []));
}

/**
 * The caller's direct conversations in a Space, the most recently active
 * first, each with the other member and its newest message: how a member finds
 * a conversation again without knowing who wrote. `before` pages by the newest
 * message id of the last conversation on the previous page.
 */
export async function listConversations(
  db: Kysely<DatabaseSchema>,
  actor: Actor,
  space: SpaceRecord,
  page: ConversationPage = {},
): Promise<Conversation[]> {
  const me = requireActiveMember(actor).member.handle;
  await requireRead(db, actor, space);
  let newest = db
    .selectFrom('messages')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('space', '=', space.slug)
    .where((eb) => eb.or([eb('direct_member_a', '=', me), eb('direct_member_b', '=', me)]))
    .groupBy(['direct_member_a', 'direct_member_b']);
  if (page.before !== undefined) newest = newest.having((eb) => eb.fn.max('id'), '<', page.before);
  const limit = Math.min(page.limit ?? DEFAULT_MESSAGE_LIMIT, MAX_MESSAGE_LIMIT);
  const ids = (await newest.orderBy((eb) => eb.fn.max('id'), 'desc').limit(limit).execute()).map((r) => Number(r.id));
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('messages').selectAll().where('id', 'in', ids).orderBy('id', 'desc').execute();
  return (await messageViews(db, rows)).map((message) => ({
    with: message.direct_members!.find((handle) => handle !== me) ?? me,
    last_message: message,
  }));
}

