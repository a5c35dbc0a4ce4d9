import type { Kysely, Selectable } from 'kysely';
import type { Config } from '../config.js';
import type { AddressPolicy } from '../egress/address-policy.js';
import type { Clock } from '../shared/clock.js';
import type { Database } from '../storage/database.js';
import type { WebhookDispatch } from './dispatch.js';
import type { WebhookSigningKeys } from './signing-keys.js';
import { EgressRefused, parseTargetUrl, resolveTarget } from '../egress/target.js';
import type { Actor } from '../identity/actor.js';
import { requireActiveMember } from '../roles/authority.js';
import { conflict, invalid, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { consumeRateLimit } from '../shared/rate-limit.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { sendChallenge } from './challenge.js';
import { lockOwner } from './owner-lock.js';
import { retireSubscriptions } from './subscriptions.js';
import type { Tx } from '../storage/database.js';
import type { WebhookEndpointTable } from './tables.js';

/** Endpoints one member may hold, whatever their status; deleted ones do not count (docs/webhooks.md). */
export const MAX_ENDPOINTS = 20;

export interface WebhookEndpoint {
  id: string;
  url: string;
  status: WebhookEndpointTable['status'];
  owner_member: string;
  created_ts: string;
  verified_ts: string | null;
}

/** What endpoint verification needs of the service. */
interface Ctx {
  db: Database;
  config: Pick<Config, 'baseUrl' | 'webhookTimeoutMs' | 'webhookVerifyRateLimitPerEndpoint' | 'webhookVerifyRateLimitPerMember'>;
  clock: Clock;
  webhookKeys: Pick<WebhookSigningKeys, 'active'>;
  egress: AddressPolicy;
  webhooks: WebhookDispatch;
}

/**
 * Registers a receiver URL for the calling member. The URL must be one
 * Atrium may send to now (docs/egress.md): it is resolved and every address
 * judged, and a refusal is a 422 that names why, with nothing stored. The
 * endpoint starts `unverified`; nothing is sent to it until a challenge
 * succeeds.
 */
export async function registerEndpoint(ctx: Ctx, actor: Actor, rawUrl: string): Promise<WebhookEndpoint> {
  const owner = requireActiveMember(actor).member.handle;
  let url: URL;
  try {
    url = parseTargetUrl(rawUrl);
    await resolveTarget(url, ctx.egress);
  } catch (err) {
    if (err instanceof EgressRefused) throw invalid('webhook_url_refused', `url: ${err.reason}`);
    throw err;
  }
  return ctx.db.transaction(async (tx) => {
    // Counted under the owner's row lock on PostgreSQL, so two racing registrations cannot both take the last place.
    await lockOwner(tx.db, owner, tx.dialect);
    const held = await tx.db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('owner_member', '=', owner)
      .where('deleted_ts', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(held.n) >= MAX_ENDPOINTS) throw conflict('quota_reached', `endpoint quota reached: a member may hold ${MAX_ENDPOINTS} webhook endpoints; delete one first`);
    const row = await tx.db
      .insertInto('webhook_endpoints')
      .values({ id: newId('whep'), owner_member: owner, url: url.href, status: 'unverified', created_ts: tx.now.toISOString(), verified_ts: null, deleted_ts: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toEndpoint(row);
  });
}

/** The caller's endpoints, oldest first. */
export async function listEndpoints(db: Kysely<DatabaseSchema>, actor: Actor): Promise<WebhookEndpoint[]> {
  const rows = await ownEndpoints(db, actor).orderBy('created_ts').orderBy('id').execute();
  return rows.map(toEndpoint);
}

/** One of the caller's endpoints; anyone else's, a deleted one or an unknown id is the same 404. */
export async function getEndpoint(db: Kysely<DatabaseSchema>, actor: Actor, id: string): Promise<WebhookEndpoint> {
  return toEndpoint(await ownRow(db, actor, id));
}

/** Deletes the endpoint and its subscriptions, cancelling what they had not sent; a second delete is a 404. */
export async function deleteEndpoint(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const row = await ownRow(tx.db, actor, id);
    await tx.db.updateTable('webhook_endpoints').set({ deleted_ts: tx.now.toISOString() }).where('id', '=', row.id).where('deleted_ts', 'is', null).execute();
    const subscriptions = await tx.db.selectFrom('webhook_subscriptions').select('id').where('endpoint_id', '=', row.id).where('deleted_ts', 'is', null).execute();
    await retireSubscriptions(tx, subscriptions.map((s) => s.id));
  });
}

/** The windows of the challenge limits (docs/webhooks.md, "Endpoints"). */
const VERIFY_ENDPOINT_WINDOW_MS = 10 * 60 * 1000;
const VERIFY_MEMBER_WINDOW_MS = 60 * 60 * 1000;

/**
 * Sends a signed challenge to the endpoint (any status) and, if the receiver
 * echoes it, makes the endpoint `active`. A failure is a 422 naming why, and
 * changes nothing. The request is made outside any transaction: a slow
 * receiver never holds a database connection.
 *
 * Each challenge is a request to a URL a member chose, so they are metered
 * per endpoint and per member (429 beyond): otherwise verify, called in a
 * loop, would make the host send a stream of POSTs at anyone's server.
 */
export async function verifyEndpoint(ctx: Ctx, actor: Actor, id: string): Promise<WebhookEndpoint> {
  const row = await ownRow(ctx.db.kysely, actor, id);
  // Counted before it is sent, in a transaction of its own, so a challenge that fails counts too;
  // the two limits commit together or not at all. Endpoint ids and handles are no one's address: kept as they are.
  await ctx.db.transaction(async (tx) => {
    const perEndpoint = ctx.config.webhookVerifyRateLimitPerEndpoint;
    await consumeRateLimit(tx, {
      bucket: 'webhook_verify_endpoint',
      keyDigest: row.id,
      limit: perEndpoint,
      windowMs: VERIFY_ENDPOINT_WINDOW_MS,
      detail: `endpoint ${row.id} was sent ${perEndpoint} challenges in the last 10 minutes, the most allowed; try again later`,
    });
    const perMember = ctx.config.webhookVerifyRateLimitPerMember;
    await consumeRateLimit(tx, {
      bucket: 'webhook_verify_member',
      keyDigest: row.owner_member,
      limit: perMember,
      windowMs: VERIFY_MEMBER_WINDOW_MS,
      detail: `your endpoints were sent ${perMember} challenges in the last hour, the most allowed for one member; try again later`,
    });
  });
  const outcome = await sendChallenge({
    endpointId: row.id,
    url: row.url,
    issuer: ctx.config.baseUrl.replace(/\/+$/, ''),
    key: await ctx.webhookKeys.active(),
    now: ctx.clock.now(),
    policy: ctx.egress,
    timeoutMs: ctx.config.webhookTimeoutMs,
  });
  if (!outcome.ok) throw invalid('challenge_failed', `the challenge failed: ${outcome.reason}`);
  return ctx.db.transaction(async (tx) => {
    const updated = await tx.db
      .updateTable('webhook_endpoints')
      .set({ status: 'active', verified_ts: tx.now.toISOString() })
      .where('id', '=', row.id)
      .where('deleted_ts', 'is', null)
      .returningAll()
      .executeTakeFirst();
    // Deleted while the challenge was out.
    if (!updated) throw notFound('webhook_endpoint_not_found', `no webhook endpoint ${id}`);
    if (row.status !== 'active') await resumeEndpoint(tx, row.id);
    tx.afterCommit(() => ctx.webhooks.kick());
    return toEndpoint(updated);
  });
}

/**
 * An endpoint that was not sendable is again: what waited for it is due now,
 * and each active subscription on it sends one catch-up wake for what
 * qualified meanwhile.
 */
async function resumeEndpoint(tx: Tx, endpointId: string): Promise<void> {
  const ts = tx.now.toISOString();
  const subscriptions = tx.db.selectFrom('webhook_subscriptions').select('id').where('endpoint_id', '=', endpointId).where('deleted_ts', 'is', null);
  await tx.db.updateTable('webhook_deliveries').set({ next_attempt_ts: ts, updated_ts: ts }).where('status', '=', 'pending').where('subscription_id', 'in', subscriptions).execute();
  await tx.db.updateTable('webhook_subscriptions').set({ catch_up: 1 }).where('endpoint_id', '=', endpointId).where('status', '=', 'active').where('deleted_ts', 'is', null).execute();
}

async function ownRow(db: Kysely<DatabaseSchema>, actor: Actor, id: string): Promise<Selectable<WebhookEndpointTable>> {
  const row = await ownEndpoints(db, actor).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('webhook_endpoint_not_found', `no webhook endpoint ${id}`);
  return row;
}

/** The caller's endpoints that are not deleted: the only ones any operation may see. */
function ownEndpoints(db: Kysely<DatabaseSchema>, actor: Actor) {
  const owner = requireActiveMember(actor).member.handle;
  return db.selectFrom('webhook_endpoints').selectAll().where('owner_member', '=', owner).where('deleted_ts', 'is', null);
}


function toEndpoint(row: Selectable<WebhookEndpointTable>): WebhookEndpoint {
  return { id: row.id, url: row.url, status: row.status, owner_member: row.owner_member, created_ts: row.created_ts, verified_ts: row.verified_ts };
}
