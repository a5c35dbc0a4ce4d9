import { sql, type Kysely } from 'kysely';
import { readFeed, type EventQuery, type EventStore, type FeedRead } from '../events/feed.js';
import type { FeedAnswer } from '../events/types.js';
import { feedKeys, type EventTail } from '../events/tail.js';
import type { Actor, MemberActor } from '../identity/actor.js';
import type { WaitAllowance } from '../operations/waits.js';
import { isOwnerOrHost, requireActiveMember } from '../roles/authority.js';
import type { DatabaseSchema } from '../storage/schema.js';

/**
 * The caller's inbox feed (docs/protocol.md#feeds): events that
 * mention the caller (subject `member:mentioned:<handle>`; a direct message names
 * its recipient there too), oldest first, with the Space feed's cursor rules.
 * The recipient is always the authenticated member: an operator's key reads its
 * own inbox, never its agents' (protocol: Feeds). Mentions are
 * filtered by the caller's current read access to each event's Space, checked on
 * every read, so losing access to an invite Space hides its mentions at once.
 */
export async function readInbox(store: EventStore, tail: EventTail, actor: Actor, read: FeedRead, waits: WaitAllowance): Promise<FeedAnswer> {
  const db = store.kysely;
  const me = requireActiveMember(actor);
  const feed = {
    key: feedKeys.inbox(me.member.handle),
    select: () => readableSpaces(db, me),
    // A member's mentions can lie anywhere in the log, far behind its head: a page walks them, not the log.
    drivenBy: `member:mentioned:${me.member.handle}`,
    // A page follows the reader's access to each Space, which can change without a new event in this
    // feed: kept under the member's access version (moved by every admission or role change, migration
    // 0032) and the Spaces an OAuth grant narrows it to.
    keepsPages: me.accessVersion === undefined ? false : `${me.accessVersion}\n${JSON.stringify(me.credential.grant?.spaces ?? null)}`,
  };
  return readFeed(store, tail, feed, read, actor, waits);
}

/**
 * Keeps the events of Spaces the caller may read now, mirroring
 * spaces/admission.ts `canRead`: open and request Spaces, invite Spaces the
 * caller is admitted to, and Spaces where the caller is Owner/Host.
 */
async function readableSpaces(db: Kysely<DatabaseSchema>, actor: MemberActor): Promise<(q: EventQuery) => EventQuery> {
  // An OAuth grant narrowed to some Spaces shows only their entries (docs/oauth.md, "Narrowing").
  const granted = actor.credential.grant?.spaces;
  if (granted) {
    const readable = await readableSpaces(db, { ...actor, credential: { type: actor.credential.type, id: actor.credential.id } });
    return (q) => readable(granted.length === 0 ? q.where(sql<boolean>`1 = 0`) : q.where('events.space', 'in', granted));
  }
  if (await isOwnerOrHost(db, actor, { hostWideOnly: true })) return (q) => q;
  const hosted = await hostedSpaces(db, actor);
  const handle = actor.member.handle;
  return (q) =>
    q.where((eb) =>
      eb.or([
        eb('events.space', 'in', eb.selectFrom('spaces').select('spaces.slug').where('spaces.join_policy', '!=', 'invite')),
        eb(
          'events.space',
          'in',
          eb
            .selectFrom('space_memberships')
            .select('space_memberships.space')
            .where('space_memberships.member_handle', '=', handle)
            .where('space_memberships.state', '=', 'admitted'),
        ),
        ...(hosted.length > 0 ? [eb('events.space', 'in', hosted)] : []),
      ]),
    );
}

/** Spaces where a Space-scoped Owner/Host assignment gives the caller read access (roles/authority.ts decides). */
async function hostedSpaces(db: Kysely<DatabaseSchema>, actor: MemberActor): Promise<string[]> {
  const rows = await db
    .selectFrom('role_assignments')
    .select('space')
    .distinct()
    .where('member_handle', '=', actor.member.handle)
    .where('status', '=', 'active')
    .where('role', 'in', ['owner', 'host'])
    .where('space', 'is not', null)
    .execute();
  const hosted: string[] = [];
  for (const { space } of rows) {
    if (space !== null && (await isOwnerOrHost(db, actor, { space }))) hosted.push(space);
  }
  return hosted;
}
