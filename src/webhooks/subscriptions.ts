import { isDeepStrictEqual } from 'node:util';
import type { Kysely, Selectable } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { requireActiveMember } from '../roles/authority.js';
import { requireAct } from '../spaces/admission.js';
import { getSpace } from '../spaces/service.js';
import { conflict, invalid, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { lockOwner } from './owner-lock.js';
import type { WebhookFilter } from './filter.js';
import { DEFAULT_DEBOUNCE_MS } from './schemas.js';
import type { WebhookSubscriptionTable } from './tables.js';

/** Owner quotas (docs/webhooks.md): every existing subscription counts, whatever its status; deleted ones do not. */
export const MAX_SUBSCRIPTIONS_PER_SPACE = 20;
export const MAX_INBOX_SUBSCRIPTIONS = 20;
export const MAX_SUBSCRIPTIONS = 100;

export type Scope = WebhookSubscriptionTable['scope'];

export interface WebhookSubscription {
  id: string;
  scope: Scope;
  space?: string;
  endpoint_id: string;
  owner_member: string;
  filter?: WebhookFilter | null;
  debounce_ms: number;
  status: WebhookSubscriptionTable['status'];
  version: number;
  activation_cursor: number | null;
  created_ts: string;
  updated_ts: string;
}

/** Which collection an operation works on: a Space's, or the caller's inbox subscriptions. */
export type Collection = { scope: 'space_events'; space: string } | { scope: 'inbox_events' };

export interface NewSubscription {
  endpoint_id: string;
  debounce_ms?: number | undefined;
  filter?: WebhookFilter | null | undefined;
}

export interface SubscriptionChange {
  status?: 'paused' | 'active' | undefined;
  debounce_ms?: number | undefined;
  filter?: WebhookFilter | null | undefined;
}

/**
 * Creates an `inactive` subscription at version 1. A Space subscription
 * follows the Space action gate (open Spaces: any active member; request and
 * invite Spaces: admission, else 403); an inbox subscription's recipient is
 * always its owner. Nothing is sent before activation.
 */
export async function createSubscription(tx: Tx, actor: Actor, collection: Collection, input: NewSubscription): Promise<WebhookSubscription> {
  const owner = requireActiveMember(actor).member.handle;
  if (collection.scope === 'space_events') {
    const space = await getSpace(tx.db, collection.space);
    await requireAct(tx.db, actor, space);
  }
  await lockOwner(tx.db, owner, tx.dialect);
  const endpoint = await tx.db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('id', '=', input.endpoint_id)
    .where('owner_member', '=', owner)
    .where('deleted_ts', 'is', null)
    .executeTakeFirst();
  if (!endpoint) throw invalid('unknown_reference', `endpoint_id: ${input.endpoint_id} is not one of your webhook endpoints`);
  await checkQuotas(tx.db, owner, collection);
  const ts = tx.now.toISOString();
  const row = await tx.db
    .insertInto('webhook_subscriptions')
    .values({
      id: newId('whsub'),
      owner_member: owner,
      endpoint_id: endpoint.id,
      scope: collection.scope,
      space: collection.scope === 'space_events' ? collection.space : null,
      filter: collection.scope === 'space_events' && input.filter ? JSON.stringify(input.filter) : null,
      debounce_ms: input.debounce_ms ?? DEFAULT_DEBOUNCE_MS,
      status: 'inactive',
      version: 1,
      activation_cursor: null,
      owed_after: null,
      owed_through: null,
      owed_since_ts: null,
      catch_up: 0,
      created_ts: ts,
      updated_ts: ts,
      deleted_ts: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSubscription(row);
}

async function checkQuotas(db: Kysely<DatabaseSchema>, owner: string, collection: Collection): Promise<void> {
  const counts = await db
    .selectFrom('webhook_subscriptions')
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn
        .count<number>('id')
        .filterWhere((w) => (collection.scope === 'space_events' ? w('space', '=', collection.space) : w('scope', '=', 'inbox_events')))
        .as('here'),
    ])
    .where('owner_member', '=', owner)
    .where('deleted_ts', 'is', null)
    .executeTakeFirstOrThrow();
  if (Number(counts.total) >= MAX_SUBSCRIPTIONS) {
    throw conflict('quota_reached', `subscription quota reached: a member may hold ${MAX_SUBSCRIPTIONS} webhook subscriptions; delete one first`);
  }
  if (collection.scope === 'space_events' && Number(counts.here) >= MAX_SUBSCRIPTIONS_PER_SPACE) {
    throw conflict('quota_reached', `subscription quota reached: a member may hold ${MAX_SUBSCRIPTIONS_PER_SPACE} subscriptions per Space; delete one first`);
  }
  if (collection.scope === 'inbox_events' && Number(counts.here) >= MAX_INBOX_SUBSCRIPTIONS) {
    throw conflict('quota_reached', `subscription quota reached: a member may hold ${MAX_INBOX_SUBSCRIPTIONS} inbox subscriptions; delete one first`);
  }
}

/** The caller's subscriptions in this collection, oldest first. */
export async function listSubscriptions(db: Kysely<DatabaseSchema>, actor: Actor, collection: Collection): Promise<WebhookSubscription[]> {
  const rows = await inCollection(db, actor, collection).orderBy('created_ts').orderBy('id').execute();
  return rows.map(toSubscription);
}

export async function getSubscription(db: Kysely<DatabaseSchema>, actor: Actor, collection: Collection, id: string): Promise<WebhookSubscription> {
  return toSubscription(await ownRow(db, actor, collection, id));
}

/**
 * Activates an `inactive` subscription: only events numbered after the
 * host's newest cursor now qualify. The projection row is held while the
 * cursor is read (PostgreSQL), so the projector cannot have passed events
 * above it while the subscription still looked inactive to it.
 */
export async function activateSubscription(tx: Tx, actor: Actor, collection: Collection, id: string): Promise<WebhookSubscription> {
  const row = await ownRow(tx.db, actor, collection, id, tx.dialect === 'postgres');
  if (row.status !== 'inactive') throw conflict('subscription_already_activated', `subscription ${id} is ${row.status}: it was activated before`);
  const endpoint = await tx.db.selectFrom('webhook_endpoints').select('status').where('id', '=', row.endpoint_id).executeTakeFirstOrThrow();
  if (endpoint.status !== 'active') throw conflict('endpoint_not_active', `endpoint ${row.endpoint_id} is ${endpoint.status}: verify it before activating a subscription`);
  const projection = tx.db.selectFrom('webhook_projection').select('cursor').where('id', '=', 1);
  await (tx.dialect === 'postgres' ? projection.forUpdate() : projection).executeTakeFirstOrThrow();
  const head = await tx.db.selectFrom('events').select((eb) => eb.fn.max('cursor').as('head')).executeTakeFirst();
  const cursor = Number(head?.head ?? 0);
  const updated = await tx.db
    .updateTable('webhook_subscriptions')
    .set({ status: 'active', activation_cursor: cursor, owed_after: cursor, owed_through: null, owed_since_ts: null, updated_ts: tx.now.toISOString() })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSubscription(updated);
}

/**
 * Changes the given fields; a real change raises `version` by 1. Pausing
 * stops wakes (events still count as owed); resuming builds one catch-up wake
 * at once for what qualified meanwhile.
 */
export async function updateSubscription(tx: Tx, actor: Actor, collection: Collection, id: string, change: SubscriptionChange): Promise<WebhookSubscription> {
  const row = await ownRow(tx.db, actor, collection, id, tx.dialect === 'postgres');
  if (change.status !== undefined && row.status === 'inactive') throw conflict('subscription_inactive', `subscription ${id} is inactive: activate it before pausing or resuming`);
  const set: Partial<WebhookSubscriptionTable> = {};
  if (change.status !== undefined && change.status !== row.status) {
    set.status = change.status;
    if (change.status === 'active') set.catch_up = 1;
  }
  if (change.debounce_ms !== undefined && change.debounce_ms !== row.debounce_ms) set.debounce_ms = change.debounce_ms;
  if (change.filter !== undefined && collection.scope === 'space_events') {
    const current = row.filter === null ? null : (JSON.parse(row.filter) as WebhookFilter);
    if (!isDeepStrictEqual(current, change.filter)) set.filter = change.filter === null ? null : JSON.stringify(change.filter);
  }
  if (Object.keys(set).length === 0) return toSubscription(row);
  const updated = await tx.db
    .updateTable('webhook_subscriptions')
    .set({ ...set, version: row.version + 1, updated_ts: tx.now.toISOString() })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSubscription(updated);
}

/** Deletes the subscription and cancels its unsent deliveries; a second delete is 404. */
export async function deleteSubscription(tx: Tx, actor: Actor, collection: Collection, id: string): Promise<void> {
  const row = await ownRow(tx.db, actor, collection, id, tx.dialect === 'postgres');
  await retireSubscriptions(tx, [row.id]);
}

/** Marks subscriptions deleted and cancels what they had not sent (also used when their endpoint is deleted). */
export async function retireSubscriptions(tx: Tx, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const ts = tx.now.toISOString();
  await tx.db.updateTable('webhook_subscriptions').set({ deleted_ts: ts, updated_ts: ts }).where('id', 'in', ids).where('deleted_ts', 'is', null).execute();
  await tx.db
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', next_attempt_ts: null, updated_ts: ts })
    .where('subscription_id', 'in', ids)
    .where('status', '=', 'pending')
    .execute();
}

async function ownRow(
  db: Kysely<DatabaseSchema>,
  actor: Actor,
  collection: Collection,
  id: string,
  lock = false,
): Promise<Selectable<WebhookSubscriptionTable>> {
  const query = inCollection(db, actor, collection).where('id', '=', id);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  if (!row) throw notFound('webhook_subscription_not_found', `no webhook subscription ${id}`);
  return row;
}

/** The caller's live subscriptions in the collection: the only ones any operation may see. */
function inCollection(db: Kysely<DatabaseSchema>, actor: Actor, collection: Collection) {
  const owner = requireActiveMember(actor).member.handle;
  const query = db.selectFrom('webhook_subscriptions').selectAll().where('owner_member', '=', owner).where('deleted_ts', 'is', null);
  return collection.scope === 'space_events' ? query.where('scope', '=', 'space_events').where('space', '=', collection.space) : query.where('scope', '=', 'inbox_events');
}

export function toSubscription(row: Selectable<WebhookSubscriptionTable>): WebhookSubscription {
  const common = {
    id: row.id,
    scope: row.scope,
    endpoint_id: row.endpoint_id,
    owner_member: row.owner_member,
    debounce_ms: row.debounce_ms,
    status: row.status,
    version: row.version,
    activation_cursor: row.activation_cursor === null ? null : Number(row.activation_cursor),
    created_ts: row.created_ts,
    updated_ts: row.updated_ts,
  };
  if (row.scope === 'inbox_events') return common;
  return { ...common, space: row.space!, filter: row.filter === null ? null : (JSON.parse(row.filter) as WebhookFilter) };
}
