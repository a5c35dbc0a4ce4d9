import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { chunks } from '../shared/chunks.js';
import { newId } from '../shared/ids.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { SPEC_VERSION } from './challenge.js';
import { Eligibility } from './eligibility.js';
import { matchesFilter, type WebhookFilter } from './filter.js';
import type { WebhookSubscriptionTable } from './tables.js';

/** Events read per projection transaction. */
export const PROJECTION_BATCH = 500;

export interface ProjectionResult {
  /** False when another node holds the projection (PostgreSQL): it does this work now. */
  ran: boolean;
  /** Events read past the watermark. */
  events: number;
  /** Wakes built. */
  wakes: number;
}

interface LoggedEvent {
  cursor: number;
  type: string;
  space: string | null;
  subjects: string[];
  audience: string[] | null;
  created_ts: string;
}

type SubscriptionRow = Selectable<WebhookSubscriptionTable>;
/** What building a wake reads of an owed subscription. */
type OwedRow = Pick<
  SubscriptionRow,
  'id' | 'version' | 'scope' | 'space' | 'activation_cursor' | 'owed_after' | 'owed_through' | 'owed_since_ts' | 'debounce_ms' | 'catch_up'
>;

/**
 * One projection step (docs/webhooks.md, "From commit to wake"), in the
 * caller's transaction:
 *
 * 1. Take the projection row (on PostgreSQL with SKIP LOCKED: one node
 *    projects at a time, the others find it taken and leave the work to it).
 * 2. Read the next events past its watermark, and for each live subscription
 *    they may concern, note the newest qualifying cursor as owed.
 * 3. Move the watermark past them.
 * 4. Turn every owed range whose debounce window has closed (or that a
 *    resume or re-verification asked to send at once) into a pending
 *    delivery with its exact body, and start the next range there.
 *
 * Steps 2-4 commit together, so the log is the outbox: a wake is owed exactly
 * once for events that committed, whatever crashes between steps.
 */
export async function project(tx: Tx, issuer: string): Promise<ProjectionResult> {
  const lock = tx.db
    .selectFrom('webhook_projection')
    .select((eb) => [
      'cursor',
      eb
        .exists(eb.selectFrom('webhook_subscriptions').select('id').where('deleted_ts', 'is', null).where('status', 'in', ['active', 'paused']))
        .as('live'),
    ])
    .where('id', '=', 1);
  const projection = await (tx.dialect === 'postgres' ? lock.forUpdate().skipLocked() : lock).executeTakeFirst();
  if (!projection) return { ran: false, events: 0, wakes: 0 };
  if (!projection.live) {
    // No subscription can be owed anything, so the watermark moves to the head unread. One
    // activated later gets an activation cursor at the head as it commits (taken while it
    // holds this row), so nothing passed over here could ever have been owed to it.
    await tx.db
      .updateTable('webhook_projection')
      .set((eb) => ({ cursor: eb.fn.coalesce(eb.selectFrom('events').select((e) => e.fn.max('cursor').as('head')), eb.ref('cursor')) }))
      .where('id', '=', 1)
      .execute();
    return { ran: true, events: 0, wakes: 0 };
  }
  const watermark = Number(projection.cursor);
  const rows = await tx.db
    .selectFrom('events')
    .select(['cursor', 'type', 'space', 'subjects', 'audience', 'created_ts'])
    .where('cursor', '>', watermark)
    .orderBy('cursor')
    .limit(PROJECTION_BATCH)
    .execute();
  const events: LoggedEvent[] = rows.map((row) => ({
    cursor: Number(row.cursor),
    type: row.type,
    space: row.space,
    subjects: JSON.parse(row.subjects) as string[],
    audience: row.audience === null ? null : (JSON.parse(row.audience) as string[]),
    created_ts: row.created_ts,
  }));
  if (events.length > 0) {
    await owe(tx, events);
    await tx.db.updateTable('webhook_projection').set({ cursor: events.at(-1)!.cursor }).where('id', '=', 1).execute();
  }
  const wakes = await buildDueWakes(tx, issuer);
  return { ran: true, events: events.length, wakes };
}

/** Notes, per subscription, the newest of these events that qualifies for it. */
async function owe(tx: Tx, events: readonly LoggedEvent[]): Promise<void> {
  const spaces = new Set<string>();
  const mentioned = new Set<string>();
  for (const event of events) {
    if (event.space !== null) spaces.add(event.space);
    for (const subject of event.subjects) if (subject.startsWith(MENTIONED)) mentioned.add(subject.slice(MENTIONED.length));
  }
  if (spaces.size === 0 && mentioned.size === 0) return;
  // Only what qualifying needs: a projection reads every live subscription an event may concern at every pass,
  // and SQLite spent more of a pass making a thousand rows' unused columns into objects than on the rest of it.
  const subscriptions = await tx.db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'owner_member', 'scope', 'space', 'filter', 'activation_cursor'])
    .where('deleted_ts', 'is', null)
    .where('status', 'in', ['active', 'paused'])
    .where((eb) =>
      eb.or([
        ...(spaces.size > 0 ? [eb.and([eb('scope', '=', 'space_events'), eb('space', 'in', [...spaces])])] : []),
        ...(mentioned.size > 0 ? [eb.and([eb('scope', '=', 'inbox_events'), eb('owner_member', 'in', [...mentioned])])] : []),
      ]),
    )
    .execute();
  if (subscriptions.length === 0) return;
  const spaceRows = spaces.size > 0 ? await tx.db.selectFrom('spaces').select(['slug', 'join_policy', 'status']).where('slug', 'in', [...spaces]).execute() : [];
  const spaceBySlug = new Map(spaceRows.map((row) => [row.slug, row]));
  const eligibility = await Eligibility.load(tx.db, subscriptions.map((s) => s.owner_member), [...spaces]);
  // Which events qualify depends on the owner, the scope, the Space and the filter, and then only on where the
  // subscription was activated: worked out once for each such kind, a Space's thousand subscriptions of a few
  // dozen owners cost a few dozen passes over the events, not a thousand.
  const qualifyingFor = new Map<string, LoggedEvent[]>();
  // Subscriptions owed the same range are updated together: a Space with a thousand subscribers costs a few statements, not a thousand.
  const groups = new Map<string, { through: number; since: string; ids: string[] }>();
  for (const subscription of subscriptions) {
    const kind = JSON.stringify([subscription.owner_member, subscription.scope, subscription.space, subscription.filter]);
    let qualifying = qualifyingFor.get(kind);
    if (!qualifying) qualifyingFor.set(kind, (qualifying = events.filter((event) => qualifies(subscription, event, spaceBySlug, eligibility))));
    const activated = Number(subscription.activation_cursor ?? Number.MAX_SAFE_INTEGER);
    const since = qualifying.find((event) => event.cursor > activated);
    if (!since) continue;
    const through = qualifying.at(-1)!.cursor;
    const key = `${through} ${since.created_ts}`;
    const group = groups.get(key) ?? { through, since: since.created_ts, ids: [] };
    group.ids.push(subscription.id);
    groups.set(key, group);
  }
  for (const { through, since, ids } of groups.values()) {
    for (const chunk of chunks(ids)) {
      await tx.db
        .updateTable('webhook_subscriptions')
        .set((eb) => ({ owed_through: through, owed_since_ts: eb.fn.coalesce('owed_since_ts', eb.val(since)) }))
        .where('id', 'in', chunk)
        .execute();
    }
  }
}

type SpaceRow = { slug: string; join_policy: 'open' | 'request' | 'invite'; status: string };

/** Whether an event qualifies for a subscription of this kind, wherever it was activated (owe() applies that). */
function qualifies(
  subscription: Pick<SubscriptionRow, 'owner_member' | 'scope' | 'space' | 'filter'>,
  event: LoggedEvent,
  spaces: Map<string, SpaceRow>,
  eligibility: Eligibility,
): boolean {
  const owner = subscription.owner_member;
  if (subscription.scope === 'inbox_events') {
    if (!event.subjects.includes(MENTIONED + owner)) return false;
    const space = event.space === null ? undefined : spaces.get(event.space);
    return space === undefined ? eligibility.isActive(owner) : eligibility.mayRead(owner, space);
  }
  if (event.space === null || event.space !== subscription.space) return false;
  const space = spaces.get(event.space)!;
  // An archived Space sends nothing new; its history stays readable by polling.
  if (space.status === 'archived' || !eligibility.mayAct(owner, space)) return false;
  // A direct message is its two participants' alone, in every feed and every wake.
  if (event.audience !== null && !event.audience.includes(owner)) return false;
  const filter = subscription.filter === null ? null : (JSON.parse(subscription.filter) as WebhookFilter);
  return matchesFilter(filter, event);
}

/**
 * Builds the wakes that are due: active subscriptions on active endpoints
 * whose owed range's debounce window has closed, or that must catch up now.
 */
async function buildDueWakes(tx: Tx, issuer: string): Promise<number> {
  const now = tx.now;
  const owed = await tx.db
    .selectFrom('webhook_subscriptions as s')
    .innerJoin('webhook_endpoints as e', 'e.id', 's.endpoint_id')
    .select(['s.id', 's.version', 's.scope', 's.space', 's.activation_cursor', 's.owed_after', 's.owed_through', 's.owed_since_ts', 's.debounce_ms', 's.catch_up'])
    .where('s.deleted_ts', 'is', null)
    .where('s.status', '=', 'active')
    .where('e.status', '=', 'active')
    .where('e.deleted_ts', 'is', null)
    .where((eb) => eb.or([eb('s.owed_through', 'is not', null), eb('s.catch_up', '=', 1)]))
    .where(noUnsentWake)
    .execute();
  const ts = now.toISOString();
  const idle: string[] = [];
  const due: OwedRow[] = [];
  for (const subscription of owed) {
    // Asked to catch up, but nothing qualified meanwhile: nothing to send.
    if (subscription.owed_through === null) idle.push(subscription.id);
    else if (subscription.catch_up === 1 || dueAt(subscription) <= now.getTime()) due.push(subscription);
  }
  for (const chunk of chunks(idle)) await tx.db.updateTable('webhook_subscriptions').set({ catch_up: 0 }).where('id', 'in', chunk).execute();
  const deliveries = due.map((subscription) => {
    const after = Number(subscription.owed_after ?? subscription.activation_cursor ?? 0);
    const through = Number(subscription.owed_through);
    const id = newId('whd');
    return {
      id,
      subscription_id: subscription.id,
      range_after: after,
      range_through: through,
      body: wakeBody(id, issuer, subscription, after, through, ts),
      status: 'pending' as const,
      attempts: 0,
      run_start: 0,
      next_attempt_ts: ts,
      lease_until: null,
      created_ts: ts,
      updated_ts: ts,
    };
  });
  for (const chunk of chunks(deliveries)) await tx.db.insertInto('webhook_deliveries').values(chunk).execute();
  // The next range starts where this wake ends (ranges are contiguous).
  for (const chunk of chunks(due.map((s) => s.id))) {
    await tx.db
      .updateTable('webhook_subscriptions')
      .set((eb) => ({ owed_after: eb.ref('owed_through'), owed_through: null, owed_since_ts: null, catch_up: 0 }))
      .where('id', 'in', chunk)
      .execute();
  }
  return deliveries.length;
}


/**
 * A subscription holds at most one wake that was built and not yet sent:
 * while one waits for its first attempt, newer events join the owed range and
 * go into the next wake. Under load this coalesces instead of queueing a wake
 * per projection, and it keeps each subscription's wakes in range order. A
 * wake already tried and waiting to retry does not hold newer ones back.
 */
function noUnsentWake(eb: ExpressionBuilder<DatabaseSchema & { s: WebhookSubscriptionTable }, 's'>) {
  // The set of subscriptions with an unsent wake, read once (a hashed subplan on PostgreSQL, a
  // temporary index on SQLite), not a lookup per subscription: a planner without statistics on
  // these tables made that lookup scan the whole partial index, once for each subscription.
  return eb(
    's.id',
    'not in',
    eb.selectFrom('webhook_deliveries as d').select('d.subscription_id').where('d.status', '=', 'pending').where('d.attempts', '=', 0),
  );
}

/** When an owed range's debounce window closes (epoch ms). */
function dueAt(subscription: Pick<SubscriptionRow, 'owed_since_ts' | 'debounce_ms'>): number {
  return Date.parse(subscription.owed_since_ts ?? '1970-01-01T00:00:00.000Z') + subscription.debounce_ms;
}

/**
 * The envelope, exactly these fields in this order, serialised once: every
 * attempt and every replay sends these same bytes.
 */
function wakeBody(id: string, issuer: string, subscription: Pick<SubscriptionRow, 'id' | 'version' | 'scope' | 'space'>, after: number, through: number, createdTs: string): string {
  const space = subscription.scope === 'space_events';
  return JSON.stringify({
    spec_version: SPEC_VERSION,
    id,
    type: space ? 'atrium.events.available' : 'atrium.inbox_events.available',
    issuer,
    subscription_id: subscription.id,
    subscription_version: subscription.version,
    ...(space ? { space: subscription.space } : {}),
    event_range: { after, through },
    created_ts: createdTs,
  });
}

/**
 * The soonest moment an owed range falls due (epoch ms), or undefined when
 * none is owed: the worker sleeps until then unless something wakes it.
 */
export async function nextOwedDue(db: Kysely<DatabaseSchema>): Promise<number | undefined> {
  const rows = await db
    .selectFrom('webhook_subscriptions as s')
    .innerJoin('webhook_endpoints as e', 'e.id', 's.endpoint_id')
    .select(['s.owed_since_ts', 's.debounce_ms'])
    .where('s.deleted_ts', 'is', null)
    .where('s.status', '=', 'active')
    .where('s.owed_through', 'is not', null)
    .where('e.status', '=', 'active')
    .where('e.deleted_ts', 'is', null)
    .where(noUnsentWake)
    .execute();
  let soonest: number | undefined;
  for (const row of rows) soonest = Math.min(soonest ?? Infinity, dueAt(row));
  return soonest;
}

const MENTIONED = 'member:mentioned:';
