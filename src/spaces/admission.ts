import type { Kysely } from 'kysely';
import { grantReaches, type Actor, type MemberActor } from '../identity/actor.js';
import { eventActor, isOwnerOrHost, requireActiveMember, requireOwnerOrHost } from '../roles/authority.js';
import { conflict, forbidden, invalid, notFound, unauthenticated } from '../shared/errors.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { SpaceRecord } from './records.js';
import { DEFAULT_SPACE_MEMBER_LIMIT, type MembershipView, type SpaceMembersPage, type SpaceMemberView } from './schemas.js';
import { getSpace } from './service.js';
import type { MembershipState } from './tables.js';

/**
 * Space admission (docs/protocol.md#space-admission). Reads of `open` and `request` Spaces are
 * public; `invite` Spaces need current admission (or Owner/Host). Writes in
 * `request` and `invite` Spaces need admission; in `open` Spaces every active
 * member may act.
 */

export async function membershipState(
  db: Kysely<DatabaseSchema>,
  slug: string,
  handle: string,
): Promise<MembershipState | undefined> {
  const row = await db
    .selectFrom('space_memberships')
    .select('state')
    .where('space', '=', slug)
    .where('member_handle', '=', handle)
    .executeTakeFirst();
  return row?.state;
}

export async function canRead(db: Kysely<DatabaseSchema>, actor: Actor, space: SpaceRecord): Promise<boolean> {
  if (space.join_policy !== 'invite') return true;
  // Outside its Spaces an OAuth grant reads only what is public (docs/oauth.md, "Narrowing").
  if (outsideGrant(actor, space.slug)) return false;
  if (actor.kind === 'member' && actor.member.status === 'active') {
    if ((await membershipState(db, space.slug, actor.member.handle)) === 'admitted') return true;
  }
  return isOwnerOrHost(db, actor, { space: space.slug });
}

export async function requireRead(db: Kysely<DatabaseSchema>, actor: Actor, space: SpaceRecord): Promise<void> {
  if (await canRead(db, actor, space)) return;
  if (actor.kind === 'anonymous') throw unauthenticated('credential_required', `Space ${space.slug} is invite-only: a credential is required`);
  throw forbidden('not_admitted', `Space ${space.slug} is invite-only: current admission is required`);
}

/** An OAuth grant narrowed to Spaces that do not include this one. */
export function outsideGrant(actor: Actor, slug: string): boolean {
  return !grantReaches(actor, slug);
}

/**
 * The Space action gate: may this caller write in the Space at all? A caller
 * that has just read (and locked) the membership passes its state as `known`.
 */
export async function requireAct(
  db: Kysely<DatabaseSchema>,
  actor: Actor,
  space: SpaceRecord,
  known?: { state: MembershipState | undefined },
): Promise<MemberActor> {
  const member = requireActiveMember(actor);
  if (outsideGrant(actor, space.slug)) throw forbidden('grant_space_excluded', `this credential's grant does not cover Space ${space.slug}: it may not act there`);
  const state = known ? known.state : await membershipState(db, space.slug, member.member.handle);
  if (state === 'admitted') return member;
  // Removal must mean something in an open Space too: a removed member may not
  // act there until an Owner/Host invites them back (docs/decisions-local.md).
  if (space.join_policy === 'open' && state !== 'removed') return member;
  if (await isOwnerOrHost(db, actor, { space: space.slug })) return member;
  throw forbidden('not_admitted', state === 'removed' ? `${member.member.handle} was removed from Space ${space.slug}` : `Space ${space.slug} requires admission`);
}

/**
 * The caller's membership row for a read-modify-write. On PostgreSQL the row is
 * held until commit, so of two racing changes (a double-clicked leave, an admit
 * racing a withdrawal) the second sees the first one's result instead of acting
 * on the same old state and emitting a second event. SQLite serialises writers.
 */
async function lockedState(tx: Tx, slug: string, handle: string): Promise<MembershipState | undefined> {
  const query = tx.db
    .selectFrom('space_memberships')
    .select('state')
    .where('space', '=', slug)
    .where('member_handle', '=', handle);
  const row = await (tx.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  return row?.state;
}

/**
 * Sets a membership state. Returns false when the row did not exist and a
 * concurrent transaction created it first: the caller then decides again on
 * the state that transaction committed (a row that does not exist yet cannot be
 * locked, so two first joins can race here).
 */
async function setState(tx: Tx, slug: string, handle: string, state: MembershipState, existed: boolean): Promise<boolean> {
  const ts = tx.now.toISOString();
  if (existed) {
    await tx.db
      .updateTable('space_memberships')
      .set({ state, updated_ts: ts })
      .where('space', '=', slug)
      .where('member_handle', '=', handle)
      .execute();
    return true;
  }
  const inserted = await tx.db
    .insertInto('space_memberships')
    .values({ space: slug, member_handle: handle, state, created_ts: ts, updated_ts: ts })
    .onConflict((oc) => oc.columns(['space', 'member_handle']).doNothing())
    .returning('state')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** `join`: open → admitted (200); request → requested (202); invite → admitted if invited, or for an Owner/Host of the Space. */
export async function join(tx: Tx, actor: Actor, slug: string): Promise<MembershipView> {
  const space = await getSpace(tx.db, slug);
  const member = requireActiveMember(actor).member.handle;
  if (space.status === 'archived') throw conflict('space_not_active', `Space ${slug} is archived`);
  const current = await lockedState(tx, slug, member);
  if (current === 'admitted') return membershipView(tx.db, slug, member);
  const subjects = [`space:${slug}`, `member:${member}`];
  const admit = async () => {
    if (!(await setState(tx, slug, member, 'admitted', current !== undefined))) return join(tx, actor, slug);
    tx.emit({
      type: 'space_member_admitted',
      space: slug,
      actor: { handle: member },
      subjects,
      payload: { slug, member, join_policy: space.join_policy },
    });
    return membershipView(tx.db, slug, member);
  };
  if (current === 'removed') {
    throw forbidden('not_admitted', `${member} was removed from Space ${slug}: an Owner or Host must invite them back`);
  }
  // An invitation admits in any Space (it is how a removed member comes back).
  if (current === 'invited') return admit();
  switch (space.join_policy) {
    case 'open':
      return admit();
    case 'invite':
      // An Owner/Host of the Space may invite anyone, themselves included: asking them to do that first
      // would be a step with no judgement in it (docs/decisions-local.md).
      if (await isOwnerOrHost(tx.db, actor, { space: slug })) return admit();
      throw forbidden(
        'not_admitted',
        `Space ${slug} is invite-only and ${member} has no invitation: an Owner or Host of ${slug} must invite ${member}, then ${member} joins`,
      );
    case 'request':
      if (current === 'requested') return membershipView(tx.db, slug, member);
      if (!(await setState(tx, slug, member, 'requested', current !== undefined))) return join(tx, actor, slug);
      tx.emit({ type: 'space_join_requested', space: slug, actor: { handle: member }, subjects, payload: { slug, member } });
      return membershipView(tx.db, slug, member);
  }
}

/** The invitee is a reference inside the body: an unknown one is invalid input (docs/decisions-local.md). */
async function requireMember(db: Kysely<DatabaseSchema>, handle: string): Promise<void> {
  const row = await db.selectFrom('members').select('handle').where('handle', '=', handle).executeTakeFirst();
  if (!row) throw invalid('unknown_reference', `no such member: ${handle}`);
}

export async function invite(tx: Tx, actor: Actor, slug: string, handle: string): Promise<MembershipView> {
  const space = await getSpace(tx.db, slug);
  await requireOwnerOrHost(tx.db, actor, { space: slug });
  await requireMember(tx.db, handle);
  if (space.status === 'archived') throw conflict('space_not_active', `Space ${slug} is archived`);
  const current = await lockedState(tx, slug, handle);
  // Open and request Spaces need no invitations, except to bring back a removed member.
  if (space.join_policy !== 'invite' && current !== 'removed') {
    throw conflict('invitation_not_applicable', `Space ${slug} is ${space.join_policy}: invitations are for invite-only Spaces and removed members`);
  }
  if (current === 'admitted') throw conflict('already_admitted', `${handle} is already admitted to ${slug}`);
  if (current !== 'invited') {
    if (!(await setState(tx, slug, handle, 'invited', current !== undefined))) return invite(tx, actor, slug, handle);
    tx.emit({
      type: 'space_member_invited',
      space: slug,
      actor: eventActor(actor),
      subjects: [`space:${slug}`, `member:${handle}`],
      payload: { slug, member: handle },
    });
  }
  return membershipView(tx.db, slug, handle);
}

/** Owner/Host decides a pending join request. */
export async function decideJoinRequest(
  tx: Tx,
  actor: Actor,
  slug: string,
  handle: string,
  decision: 'admit' | 'decline',
): Promise<MembershipView> {
  const space = await getSpace(tx.db, slug);
  await requireOwnerOrHost(tx.db, actor, { space: slug });
  const current = await lockedState(tx, slug, handle);
  if (current !== 'requested') throw notFound('join_request_not_found', `no pending join request from ${handle} in ${slug}`);
  const subjects = [`space:${slug}`, `member:${handle}`];
  if (decision === 'admit') {
    await setState(tx, slug, handle, 'admitted', true);
    tx.emit({
      type: 'space_member_admitted',
      space: slug,
      actor: eventActor(actor),
      subjects,
      payload: { slug, member: handle, join_policy: space.join_policy },
    });
  } else {
    await tx.db.deleteFrom('space_memberships').where('space', '=', slug).where('member_handle', '=', handle).execute();
    tx.emit({ type: 'space_join_declined', space: slug, actor: eventActor(actor), subjects, payload: { slug, member: handle } });
  }
  return membershipView(tx.db, slug, handle);
}

export async function leave(tx: Tx, actor: Actor, slug: string): Promise<MembershipView> {
  await getSpace(tx.db, slug);
  const member = requireActiveMember(actor).member.handle;
  const current = await lockedState(tx, slug, member);
  if (current !== 'admitted' && current !== 'requested' && current !== 'invited') {
    throw conflict('not_a_member', `${member} is not a member of ${slug}`);
  }
  await tx.db.deleteFrom('space_memberships').where('space', '=', slug).where('member_handle', '=', member).execute();
  tx.emit({
    type: 'space_member_left',
    space: slug,
    actor: { handle: member },
    subjects: [`space:${slug}`, `member:${member}`],
    payload: { slug, member },
  });
  return membershipView(tx.db, slug, member);
}

export async function remove(tx: Tx, actor: Actor, slug: string, handle: string): Promise<MembershipView> {
  await getSpace(tx.db, slug);
  await requireOwnerOrHost(tx.db, actor, { space: slug });
  const current = await lockedState(tx, slug, handle);
  if (current === undefined || current === 'removed') throw notFound('membership_not_found', `${handle} is not a member of ${slug}`);
  await setState(tx, slug, handle, 'removed', true);
  tx.emit({
    type: 'space_member_removed',
    space: slug,
    actor: eventActor(actor),
    subjects: [`space:${slug}`, `member:${handle}`],
    payload: { slug, member: handle },
  });
  return membershipView(tx.db, slug, handle);
}

async function membershipView(db: Kysely<DatabaseSchema>, slug: string, handle: string): Promise<MembershipView> {
  const row = await db
    .selectFrom('space_memberships')
    .select(['state', 'updated_ts'])
    .where('space', '=', slug)
    .where('member_handle', '=', handle)
    .executeTakeFirst();
  return { space: slug, member: handle, state: row?.state ?? 'none', updated_ts: row?.updated_ts ?? null };
}

/**
 * `GET /v0/me/memberships`: where the caller stands in every Space they have a
 * standing in (invited, requested, admitted or removed), so a client can list
 * "your Spaces" without reading every Space's member list.
 */
export async function listOwnMemberships(db: Kysely<DatabaseSchema>, handle: string): Promise<MembershipView[]> {
  const rows = await db
    .selectFrom('space_memberships')
    .select(['space', 'state', 'updated_ts'])
    .where('member_handle', '=', handle)
    .orderBy('space')
    .execute();
  return rows.map((r) => ({ space: r.space, member: handle, state: r.state, updated_ts: r.updated_ts }));
}

/**
 * `GET /v0/spaces/{slug}/members` follows read access. Everyone who may read
 * sees admitted members; pending invitations and requests (and removals) are
 * the Space Owner/Host's business. A page is read in handle order from the
 * membership index by (Space, state, handle), so its cost is a page's whatever
 * the Space's size.
 */
export async function listMemberships(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, page: SpaceMembersPage = {}): Promise<SpaceMemberView[]> {
  const space = await getSpace(db, slug);
  await requireRead(db, actor, space);
  const everything = await isOwnerOrHost(db, actor, { space: slug });
  if (!everything && page.state !== undefined && page.state !== 'admitted') {
    throw forbidden('role_required', `only the Space Owner/Host may list ${page.state} memberships`);
  }
  let query = db
    .selectFrom('space_memberships')
    .innerJoin('members', 'members.handle', 'space_memberships.member_handle')
    .select(['space_memberships.member_handle', 'space_memberships.state', 'space_memberships.updated_ts', 'members.type', 'members.operator'])
    .where('space_memberships.space', '=', slug)
    .orderBy('space_memberships.member_handle')
    .limit(page.limit ?? DEFAULT_SPACE_MEMBER_LIMIT);
  const state = everything ? page.state : 'admitted';
  if (state !== undefined) query = query.where('space_memberships.state', '=', state);
  if (page.before !== undefined) query = query.where('space_memberships.member_handle', '>', page.before);
  const rows = await query.execute();
  return rows.map((r) => ({
    space: slug,
    member: r.member_handle,
    state: r.state,
    updated_ts: r.updated_ts,
    member_type: r.type,
    // A person has no operator, whatever an old row may hold.
    operator: r.type === 'agent' ? r.operator : null,
  }));
}
