/**
 * Edits (docs/messages.md, "Edits"). A message's author may change its body
 * while they may still post there; every earlier body stays readable by whoever
 * can read the message, as a version of it. The current body stays in the
 * message's row and each replaced one moves to `message_versions` unchanged, so
 * an event naming a version can always be joined to what that version said
 * (src/events/stored-once.ts).
 */
import type { Kysely, Selectable } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { reindexMessage } from '../search/index-writes.js';
import { conflict, forbidden } from '../shared/errors.js';
import { requireAct } from '../spaces/admission.js';
import type { SpaceRecord } from '../spaces/records.js';
import { getSpace } from '../spaces/service.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { checkBody, requireActiveSpace } from './content.js';
import { loadReactions } from '../reactions/views.js';
import { conversationSubject, eventAudience, eventPlacement, toMessage, type Message } from './records.js';
import { resolveMentions } from './resolve-mentions.js';
import type { MessageVersion } from './schemas.js';
import { readableMessage, requireRecipient, type PreparedBody } from './service.js';
import type { MessageTable } from './tables.js';

type MessageRow = Selectable<MessageTable>;

/**
 * Replaces a message's body with `prepared`, as version `expectedVersion + 1`.
 * Refused: a message the caller may not read (404), someone else's (403), a
 * caller who may no longer post there, or a direct message whose other member
 * may no longer receive one (403), an inactive Space (409), a stale
 * `expectedVersion` (409). Mentions are found again: members the new body
 * mentions that no earlier version did are notified; nobody is un-notified.
 */
export async function editMessage(tx: Tx, actor: Actor, slug: string, id: number, prepared: PreparedBody, expectedVersion: number): Promise<Message> {
  const space = await getSpace(tx.db, slug);
  const row = await readableMessage(tx.db, actor, space, id);
  const author = await requireAuthorMayPost(tx.db, actor, space, row);
  requireNotDeleted(row);
  checkBody(prepared.text);
  const mentioned = row.direct_member_a === null ? await resolveMentions(tx.db, prepared.candidates, author) : [otherMember(row, author)];
  const earlier = await everMentioned(tx.db, row);
  const newlyMentioned = mentioned.filter((handle) => !earlier.has(handle));

  // The version check and the write are one statement: of two edits of the same version, the second finds none to replace.
  const edited = await tx.db
    .updateTable('messages')
    .set({ body: prepared.text, mentioned_members: JSON.stringify(mentioned), version: expectedVersion + 1, edited_ts: tx.now.toISOString() })
    .where('id', '=', row.id)
    .where('version', '=', expectedVersion)
    // A deletion leaves the version as it was: this keeps an edit racing one from writing a body back.
    .where('deleted_ts', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!edited) {
    const now = await tx.db.selectFrom('messages').select(['id', 'deleted_ts']).where('id', '=', row.id).executeTakeFirstOrThrow();
    requireNotDeleted(now);
    throw conflict('message_version_conflict', `message ${id} is not at version ${expectedVersion}: read it again and reapply your change`);
  }
  await tx.db
    .insertInto('message_versions')
    .values({
      message_id: row.id,
      version: expectedVersion,
      body: row.body,
      mentioned_members: row.mentioned_members,
      created_ts: row.edited_ts ?? row.created_ts,
    })
    .execute();
  await reindexMessage(tx, edited);
  const message = toMessage(edited, (await loadReactions(tx.db, [Number(edited.id)])).get(Number(edited.id)) ?? []);
  tx.emit({
    type: 'message_edited',
    space: space.slug,
    actor: { handle: author },
    subjects: [
      `space:${space.slug}`,
      ...conversationSubject(message),
      `message:${message.id}`,
      ...newlyMentioned.map((handle) => `member:mentioned:${handle}`),
    ],
    payload: {
      ...eventPlacement(message),
      author,
      body: message.body,
      version: message.version,
      mentioned_members: mentioned,
      ...(message.direct_members ? { direct_members: [...message.direct_members] } : {}),
    },
    ...eventAudience(message),
  });
  return message;
}

/** Every version of a message the caller may read, oldest first (the last is current). */
export async function listVersions(db: Kysely<DatabaseSchema>, actor: Actor, space: SpaceRecord, id: number): Promise<MessageVersion[]> {
  const row = await readableMessage(db, actor, space, id);
  // A deleted message's versions were redacted with it.
  if (row.deleted_ts !== null) return [];
  const earlier = await db.selectFrom('message_versions').selectAll().where('message_id', '=', row.id).orderBy('version').execute();
  const current = { version: row.version, body: row.body, mentioned_members: row.mentioned_members, created_ts: row.edited_ts ?? row.created_ts };
  return [...earlier, current].map((v) => ({
    version: Number(v.version),
    body: v.body,
    mentioned_members: JSON.parse(v.mentioned_members) as string[],
    created_ts: v.created_ts,
  }));
}

/**
 * Only the author changes their message, and only while they may still post
 * where it is: the Space's action gate, an active Space, and for a direct
 * message a recipient who may still receive one. Answers the author's handle.
 */
async function requireAuthorMayPost(db: Kysely<DatabaseSchema>, actor: Actor, space: SpaceRecord, row: MessageRow): Promise<string> {
  const caller = actor.kind === 'member' ? actor.member.handle : undefined;
  if (caller !== row.author) throw forbidden('not_message_author', `only ${row.author} may edit message ${row.id}`);
  await requireAct(db, actor, space);
  requireActiveSpace(space);
  if (row.direct_member_a !== null) await requireRecipient(db, otherMember(row, row.author), space);
  return row.author;
}

/** A tombstone has nothing left to edit or delete (409: the message exists, in a state that refuses it). */
export function requireNotDeleted(row: Pick<MessageRow, 'id' | 'deleted_ts'>): void {
  if (row.deleted_ts !== null) throw conflict('message_deleted', `message ${row.id} was deleted`);
}

function otherMember(row: MessageRow, handle: string): string {
  return row.direct_member_a === handle ? row.direct_member_b! : row.direct_member_a!;
}

/** Everyone any version of the message mentioned: they were notified once, and never are again. */
async function everMentioned(db: Kysely<DatabaseSchema>, row: MessageRow): Promise<Set<string>> {
  const earlier = await db.selectFrom('message_versions').select('mentioned_members').where('message_id', '=', row.id).execute();
  return new Set([row, ...earlier].flatMap((v) => JSON.parse(v.mentioned_members) as string[]));
}

