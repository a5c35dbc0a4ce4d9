import type { Kysely, Selectable } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { requireActiveMember } from '../roles/authority.js';
import { conflict, notFound } from '../shared/errors.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import type { WebhookAttemptTable, WebhookDeliveryTable } from './tables.js';

/** Deliveries one history read returns, newest first. */
export const DELIVERY_HISTORY_LIMIT = 100;

export interface WebhookDelivery {
  id: string;
  subscription_id: string;
  event_range: { after: number; through: number };
  status: WebhookDeliveryTable['status'];
  attempts: Array<{ attempt: number; started_ts: string; duration_ms: number; response_status: number | null; error: string | null }>;
  created_ts: string;
  next_attempt_ts: string | null;
}

/**
 * The newest deliveries of one of the caller's subscriptions (either scope),
 * each with its attempts: transport attempts, not a receipt that anything
 * was processed.
 */
export async function listDeliveries(db: Kysely<DatabaseSchema>, actor: Actor, subscriptionId: string): Promise<WebhookDelivery[]> {
  const owner = requireActiveMember(actor).member.handle;
  const subscription = await db
    .selectFrom('webhook_subscriptions')
    .select('id')
    .where('id', '=', subscriptionId)
    .where('owner_member', '=', owner)
    .where('deleted_ts', 'is', null)
    .executeTakeFirst();
  if (!subscription) throw notFound('webhook_subscription_not_found', `no webhook subscription ${subscriptionId}`);
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('subscription_id', '=', subscription.id)
    .orderBy('created_ts', 'desc')
    .orderBy('range_through', 'desc')
    .limit(DELIVERY_HISTORY_LIMIT)
    .execute();
  return withAttempts(db, rows);
}

/**
 * Sends a dead delivery again, now, with the same id and body; if it fails,
 * the retry schedule starts over from its first step. Attempt numbers go on.
 */
export async function replayDelivery(tx: Tx, actor: Actor, id: string): Promise<WebhookDelivery> {
  const owner = requireActiveMember(actor).member.handle;
  const query = tx.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .innerJoin('webhook_endpoints as e', 'e.id', 's.endpoint_id')
    .selectAll('d')
    .select(['e.status as endpoint_status', 'e.id as endpoint_id'])
    .where('d.id', '=', id)
    .where('s.owner_member', '=', owner)
    .where('s.deleted_ts', 'is', null);
  const row = await (tx.dialect === 'postgres' ? query.forUpdate(['d']) : query).executeTakeFirst();
  if (!row) throw notFound('webhook_delivery_not_found', `no webhook delivery ${id}`);
  if (row.status !== 'dead') throw conflict('delivery_not_dead', `delivery ${id} is ${row.status}: only a dead delivery can be replayed`);
  if (row.endpoint_status !== 'active') throw conflict('endpoint_not_active', `endpoint ${row.endpoint_id} is ${row.endpoint_status}: verify it before replaying`);
  const ts = tx.now.toISOString();
  const updated = await tx.db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', run_start: row.attempts, next_attempt_ts: ts, lease_until: null, updated_ts: ts })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return (await withAttempts(tx.db, [updated]))[0]!;
}

async function withAttempts(db: Kysely<DatabaseSchema>, rows: Array<Selectable<WebhookDeliveryTable>>): Promise<WebhookDelivery[]> {
  if (rows.length === 0) return [];
  const attempts = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where(
      'delivery_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('attempt')
    .execute();
  const byDelivery = new Map<string, Array<Selectable<WebhookAttemptTable>>>();
  for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
  return rows.map((row) => ({
    id: row.id,
    subscription_id: row.subscription_id,
    event_range: { after: Number(row.range_after), through: Number(row.range_through) },
    status: row.status,
    attempts: (byDelivery.get(row.id) ?? []).map((a) => ({
      attempt: a.attempt,
      started_ts: a.started_ts,
      duration_ms: a.duration_ms,
      response_status: a.response_status,
      error: a.error,
    })),
    created_ts: row.created_ts,
    next_attempt_ts: row.next_attempt_ts,
  }));
}
