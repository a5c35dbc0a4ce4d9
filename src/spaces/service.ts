import type { Kysely } from 'kysely';
import { createGeneralChannel } from '../channels/general.js';
import type { Actor } from '../identity/actor.js';
import { eventActor, requireActiveHuman, requireOwnerOrHost } from '../roles/authority.js';
import { conflict, notFound, unauthenticated } from '../shared/errors.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { MembershipState } from './tables.js';
import { DEFAULT_REVIEW_POLICY, GOVERNANCE_MODE, spaceNameKey, toSpaceRecord, type SpaceRecord } from './records.js';
import type { JoinPolicy, ReviewPolicy, SpaceStatus } from './tables.js';
import { PreparedStatement } from '../storage/prepared.js';

export async function findSpace(db: Kysely<DatabaseSchema>, slug: string): Promise<SpaceRecord | undefined> {
  const row = await db.selectFrom('spaces').selectAll().where('slug', '=', slug).executeTakeFirst();
  return row ? toSpaceRecord(row) : undefined;
}

export async function getSpace(db: Kysely<DatabaseSchema>, slug: string): Promise<SpaceRecord> {
  const space = await findSpace(db, slug);
  if (!space) throw notFound('space_not_found', `no such Space: ${slug}`);
  return space;
}

/**
 * The Space (404 if none) and the member's membership state in it, in one
 * statement: what `requireAct` needs (pass `known`). A write that checks the
 * caller's admission would otherwise pay a second statement (a round trip on
 * PostgreSQL) before its own work.
 */
export async function getSpaceWithMembership(
  db: Kysely<DatabaseSchema>,
  slug: string,
  handle: string,
): Promise<{ space: SpaceRecord; known: { state: MembershipState | undefined } }> {
  const row = await SPACE_WITH_MEMBERSHIP.first(db, { slug, handle });
  if (!row) throw notFound('space_not_found', `no such Space: ${slug}`);
  const { membership_state, ...space } = row;
  return { space: toSpaceRecord(space), known: { state: membership_state ?? undefined } };
}

// Every write in a Space starts here: built once (storage/prepared.ts).
const SPACE_WITH_MEMBERSHIP = new PreparedStatement((db, { slug, handle }: { slug: string; handle: string }) =>
  db
    .selectFrom('spaces as s')
    .selectAll('s')
    .select((eb) =>
      eb.selectFrom('space_memberships as m').select('m.state').whereRef('m.space', '=', 's.slug').where('m.member_handle', '=', handle).as('membership_state'),
    )
    .where('s.slug', '=', slug),
);

/**
 * protocol: Space, `GET /v0/spaces`. Newest first. The default lists proposed and
 * active Spaces; archived ones are removed from public listings and need the
 * steward key or a host-wide Owner/Host.
 */
export async function listSpaces(db: Kysely<DatabaseSchema>, actor: Actor, status?: SpaceStatus): Promise<SpaceRecord[]> {
  if (status === 'archived') {
    if (actor.kind === 'anonymous') throw unauthenticated('credential_required', 'listing archived Spaces needs the steward key or a host-wide Owner/Host credential');
    await requireOwnerOrHost(db, actor, { hostWideOnly: true });
  }
  const statuses: SpaceStatus[] = status ? [status] : ['proposed', 'active'];
  const rows = await db
    .selectFrom('spaces')
    .selectAll()
    .where('status', 'in', statuses)
    .orderBy('created_ts', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toSpaceRecord);
}

/**
 * Reads a Space for a read-modify-write, holding its row until commit on
 * PostgreSQL so a concurrent change cannot slip between the read and the write
 * (the event's `previous_…` values stay true). SQLite already serialises writers.
 * `FOR NO KEY UPDATE` is the lock the UPDATE itself takes: unlike `FOR UPDATE` it
 * does not block the key-share locks that inserts referencing the Space (joins)
 * take for their foreign key.
 */
async function lockSpace(tx: Tx, slug: string): Promise<SpaceRecord> {
  const query = tx.db.selectFrom('spaces').selectAll().where('slug', '=', slug);
  const row = await (tx.dialect === 'postgres' ? query.forNoKeyUpdate() : query).executeTakeFirst();
  if (!row) throw notFound('space_not_found', `no such Space: ${slug}`);
  return toSpaceRecord(row);
}

export interface ProposeSpaceInput {
  slug: string;
  name: string;
  purpose?: string;
  charter?: string;
  join_policy?: JoinPolicy;
}

export async function proposeSpace(tx: Tx, actor: Actor, input: ProposeSpaceInput): Promise<SpaceRecord> {
  const proposer = requireActiveHuman(actor).member.handle;
  const nameKey = spaceNameKey(input.name);
  const ts = tx.now.toISOString();
  const row = {
    slug: input.slug,
    name: input.name,
    name_key: nameKey,
    purpose: input.purpose ?? '',
    charter: input.charter ?? '',
    join_policy: input.join_policy ?? 'open',
    review_policy: DEFAULT_REVIEW_POLICY,
    governance_mode: GOVERNANCE_MODE,
    status: 'proposed' as const,
    steward: proposer,
    created_by: proposer,
    created_ts: ts,
    updated_ts: ts,
    pinned_resources: '[]',
  };
  // One statement when the slug and name are free (the common case): a clash
  // inserts nothing, and only then is the clashing Space looked up, to say which.
  // Checking first would cost every proposal a round trip, and still race.
  const inserted = await tx.db.insertInto('spaces').values(row).onConflict((oc) => oc.doNothing()).returningAll().executeTakeFirst();
  if (!inserted) {
    const clash = await tx.db
      .selectFrom('spaces')
      .select(['slug', 'name_key'])
      .where((eb) => eb.or([eb('slug', '=', input.slug), eb('name_key', '=', nameKey)]))
      .executeTakeFirst();
    throw conflict('space_exists', clash?.slug === input.slug || !clash ? `slug ${input.slug} exists` : `a Space named "${input.name}" exists`);
  }
  tx.emit({
    type: 'space_proposed',
    space: input.slug,
    actor: { handle: proposer },
    subjects: [`space:${input.slug}`, `member:${proposer}`],
    payload: { slug: input.slug, name: input.name, join_policy: row.join_policy },
  });
  return toSpaceRecord(inserted);
}

/** The Space status table (protocol: Space status). */
const TRANSITIONS = {
  approve: { from: 'proposed', to: 'active', event: 'space_approved' },
  archive: { from: 'proposed', to: 'archived', event: 'space_archived' },
  restore: { from: 'archived', to: 'proposed', event: 'space_restored' },
} as const;

export type SpaceTransition = keyof typeof TRANSITIONS;

export async function transitionSpace(
  tx: Tx,
  actor: Actor,
  slug: string,
  transition: SpaceTransition,
  reason = '',
): Promise<SpaceRecord> {
  const space = await getSpace(tx.db, slug);
  await requireOwnerOrHost(tx.db, actor, { space: slug, hostWideOnly: true });
  const rule = TRANSITIONS[transition];
  // Conditional update: of two racing transitions only one sees the old status.
  const result = await tx.db
    .updateTable('spaces')
    .set({ status: rule.to, updated_ts: tx.now.toISOString() })
    .where('slug', '=', slug)
    .where('status', '=', rule.from)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    throw conflict('space_transition_invalid', `cannot ${transition} Space ${slug}: it is ${space.status}, not ${rule.from}`);
  }
  const base = { space: slug, actor: eventActor(actor), subjects: [`space:${slug}`] };
  if (rule.event === 'space_archived') tx.emit({ ...base, type: rule.event, payload: { slug, reason } });
  else tx.emit({ ...base, type: rule.event, payload: { slug } });
  // protocol: Channels. Every Space gets channel `general` when approved, in the same transaction.
  if (transition === 'approve') await createGeneralChannel(tx, actor.kind === 'member' ? actor.member.handle : null, slug);
  return getSpace(tx.db, slug);
}

export async function changeReviewPolicy(
  tx: Tx,
  actor: Actor,
  slug: string,
  reviewPolicy: ReviewPolicy,
  reason: string,
): Promise<SpaceRecord> {
  const space = await lockSpace(tx, slug);
  await requireOwnerOrHost(tx.db, actor, { space: slug, signedIn: true });
  // Setting the policy it already has changes nothing, so no event says it did
  // (docs/decisions-local.md).
  if (space.review_policy === reviewPolicy) return space;
  await tx.db
    .updateTable('spaces')
    .set({ review_policy: reviewPolicy, updated_ts: tx.now.toISOString() })
    .where('slug', '=', slug)
    .execute();
  tx.emit({
    type: 'space_review_policy_changed',
    space: slug,
    actor: eventActor(actor),
    subjects: [`space:${slug}`],
    payload: { slug, previous_review_policy: space.review_policy, review_policy: reviewPolicy, reason },
  });
  return getSpace(tx.db, slug);
}
