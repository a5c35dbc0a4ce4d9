import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Static } from '@sinclair/typebox';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../shared/clock.js';
import type { Actor, MemberActor } from '../identity/actor.js';
import { base32 } from '../shared/ids.js';
import { MAX_RESPONSE_BYTES_CEILING, type TicketIssued, type TicketIssueRequest } from '../shared/gateway-wire.js';
import { principalOf } from '../tasks/provenance.js';
import type { Database, Tx } from '../storage/database.js';
import { checkPurpose, judgeApproval } from './approvals.js';
import { callerKey, type CredentialCallLimits } from './call-limits.js';
import { admitsMember, type CredentialConnection, type CredentialConnections } from './connections.js';
import { canonicalRequest, type CanonicalRequest } from './external-request.js';
import { callWithTicket, issueTicket, type CallAnswer } from './gateway-client.js';
import { CredentialRefusal, refuse } from './refusal.js';
import type { CallBody } from './schemas.js';
import { admittedMember } from './space-access.js';

/** The body of a credential call or ticket request (the caller's side of the protocol's call fields). */
export type CallInput = Static<typeof CallBody>;

/** What issuing a ticket and calling through it need of the service. */
export interface IssuanceDeps {
  db: Database;
  config: Pick<Config, 'gateway' | 'baseUrl'>;
  log: Logger;
  credentialConnections: CredentialConnections;
  credentialCalls: CredentialCallLimits;
  clock: Clock;
}

/** No ticket lives longer than five minutes, whatever a connection allows. */
export const TICKET_TTL_CEILING = 300;
/** Tickets are meant to be used at once; a caller that needs longer asks. */
export const DEFAULT_TICKET_TTL = 30;

export interface IssuedTicket {
  ticket: string;
  expires_ts: string;
  run_id: string;
}

/** Everything checked and reserved, ready for the gateway. */
interface Reservation {
  member: MemberActor;
  connection: CredentialConnection;
  request: CanonicalRequest;
  runId: string;
  taskId: number | null;
  approvalId: string | null;
  ttl: number;
  /** The accountable principal as a member id, read with the rest so nothing can fail between reserving and asking. */
  operator: string | null;
}

/**
 * Issues a ticket for one exact request (docs/gateway.md, "The service side").
 *
 * Order matters, in three steps:
 * 1. One transaction checks the caller, Space, connection, request, task,
 *    approval and run, then consumes the approval and reserves the run id
 *    (for a call without task or approval, one statement: reserveAtOnce).
 *    The approval's conditional update and the run's primary key decide every
 *    race: of two calls presenting one approval, exactly one gets past here.
 * 2. Only then is the gateway asked, outside any transaction (a database
 *    transaction held across a network call would stall every writer of an
 *    embedded database for as long as the gateway takes).
 * 3. A refusal or an unreachable gateway releases both in a second
 *    transaction, so refusals use nothing up (a ticket whose answer was lost
 *    on the way is held by nobody and expires unused); an issued ticket turns
 *    the reservation into a used run and records `credential_ticket_issued`.
 * A call presents its ticket while that last transaction commits (see
 * callExternalService); one the gateway refuses for load (too many calls in
 * flight) frees the run and approval too.
 * A process that dies between 1 and 3 leaves the approval and run id used:
 * a ticket may exist, and failing closed is the safe side. The gateway's
 * ledger says whether one was issued.
 */
export async function issueCredentialTicket(ctx: IssuanceDeps, actor: Actor, slug: string, input: CallInput): Promise<IssuedTicket> {
  const { ticket, expires_ts, run_id, settle } = await issue(ctx, actor, slug, input);
  await settle();
  return { ticket, expires_ts, run_id };
}

/** An issued ticket, with what undoing its run needs, and the transaction that marks its run used (step 3), still to run. */
interface Issued extends IssuedTicket {
  memberHandle: string;
  approvalId: string | null;
  /** How long the ticket's answer may be, as the gateway said (the ceiling when it did not). */
  maxResponseBytes: number;
  settle: () => Promise<void>;
}

/** Steps 1 and 2, and step 3 for a refusal; an issued ticket's step 3 is left to the caller (`settle`). */
async function issue(ctx: IssuanceDeps, actor: Actor, slug: string, input: CallInput): Promise<Issued> {
  const runId = input.run_id ?? newRunId();
  const reservation = (await reserveAtOnce(ctx, actor, slug, input, runId)) ?? (await ctx.db.transaction((tx) => reserve(tx, ctx, actor, slug, input, runId)));
  const { member, connection, request } = reservation;
  const issueRequest: TicketIssueRequest = {
    request_id: randomUUID(),
    space: slug,
    connection_id: connection.id,
    destination_id: connection.destinationId,
    member: memberId(ctx, member.member.handle),
    member_type: member.member.type,
    operator: reservation.operator,
    task_id: reservation.taskId,
    run_id: runId,
    purpose: input.purpose,
    approval_id: reservation.approvalId,
    ttl_seconds: reservation.ttl,
    request: {
      method: request.method,
      url: request.url,
      headers: request.headers,
      ...(request.body !== undefined ? { body_base64: request.body.toString('base64') } : {}),
    },
  };
  let issued: TicketIssued;
  try {
    issued = await issueTicket(ctx.config.gateway, issueRequest, ctx.log);
  } catch (err) {
    await ctx.db.transaction((tx) => releaseRun(tx, member.member.handle, runId, reservation.approvalId, 'reserved'));
    throw err;
  }
  const settle = async () => {
    await ctx.db.transaction(async (tx) => {
      await tx.db
        .updateTable('credential_runs')
        .set({ state: 'issued', issued_ts: tx.now.toISOString() })
        .where('member_handle', '=', member.member.handle)
        .where('run_id', '=', runId)
        .execute();
      tx.emit({
        type: 'credential_ticket_issued',
        space: slug,
        actor: { handle: member.member.handle },
        subjects: [`space:${slug}`, `member:${member.member.handle}`, ...(reservation.taskId !== null ? [`task:${reservation.taskId}`] : [])],
        payload: {
          connection_id: connection.id,
          run_id: runId,
          task_id: reservation.taskId,
          approval_id: reservation.approvalId,
          method: request.method,
          host: request.host,
          expires_ts: issued.expires_ts,
        },
      });
    });
    ctx.log.info({ space: slug, connection: connection.id, member: member.member.handle, run_id: runId }, 'credential ticket issued');
  };
  return {
    ticket: issued.ticket,
    expires_ts: issued.expires_ts,
    run_id: runId,
    memberHandle: member.member.handle,
    approvalId: reservation.approvalId,
    maxResponseBytes: issued.max_response_bytes ?? MAX_RESPONSE_BYTES_CEILING,
    settle,
  };
}

/**
 * The preferred path: the service uses the ticket itself, so it never reaches
 * the caller. The call holds a place among this process's calls in flight
 * (call-limits.ts) from before anything is checked until its answer is ready,
 * and room for that answer from when the gateway says how long it may be
 * until then too. A call refused for room is refused before its ticket is
 * used: the ticket is dropped (it never left this process, and it expires)
 * and the run id and approval freed, as when the gateway refuses it for load.
 * The ticket is presented while the transaction that marks its run used
 * commits, not after: the run was reserved before the gateway was asked, so
 * nothing can reuse it meanwhile, and the answer waits for both. A call whose
 * transaction fails is answered with that failure even if the provider was
 * reached (a lost answer: reconcile by run id), and its run stays used.
 */
export async function callExternalService(ctx: IssuanceDeps, actor: Actor, slug: string, input: CallInput): Promise<CallAnswer> {
  const place = ctx.credentialCalls.take(callerKey(actor), slug, input.connection_id);
  try {
    const issued = await issue(ctx, actor, slug, input);
    try {
      place.hold(issued.maxResponseBytes);
    } catch (err) {
      await ctx.db.transaction((tx) => releaseRun(tx, issued.memberHandle, issued.run_id, issued.approvalId, 'reserved'));
      throw err;
    }
    const [settled, called] = await Promise.allSettled([issued.settle(), callWithTicket(ctx.config.gateway, issued.ticket, issued.run_id, issued.maxResponseBytes, ctx.log)]);
    if (settled.status === 'rejected') throw settled.reason;
    if (called.status === 'fulfilled') return called.value;
    const err: unknown = called.reason;
    // The gateway refused the ticket for load before using it, and only this
    // process holds it: it is dropped unused (it expires), and the run id and
    // approval are freed, so the same call can be made again.
    if (err instanceof CredentialRefusal && (err.code === 'too_many_calls' || err.code === 'gateway_busy')) {
      await ctx.db.transaction((tx) => releaseRun(tx, issued.memberHandle, issued.run_id, issued.approvalId, 'issued'));
    }
    throw err;
  } finally {
    place.leave();
  }
}

/**
 * Step 1 for a call that names no task and no approval and needs neither, in
 * one statement outside any transaction: the run is inserted only where the
 * caller is admitted to the Space, the Space is active and the run id unused,
 * so the insert is every check the database must make. Undefined when the call
 * is not such a call, or the insert did not happen: `reserve` then makes the
 * checks one by one, in their order, and says which failed.
 */
async function reserveAtOnce(ctx: IssuanceDeps, actor: Actor, slug: string, input: CallInput, runId: string): Promise<Reservation | undefined> {
  if (actor.kind !== 'member' || actor.member.status !== 'active' || input.task_id != null || input.approval_id != null) return undefined;
  const me = actor.member.handle;
  const connection = ctx.credentialConnections.find(slug, input.connection_id);
  if (!connection || !admitsMember(connection, actor.member) || connection.requireTask) return undefined;
  let request: CanonicalRequest;
  try {
    checkPurpose(input.purpose);
    request = canonicalRequest(input.request);
  } catch {
    return undefined;
  }
  if (connection.approvalRequiredMethods.includes(request.method)) return undefined;
  const principal = await principalOf(ctx.db.kysely, actor.member);
  const reserved = await ctx.db.kysely
    .insertInto('credential_runs')
    .columns(['member_handle', 'run_id', 'space', 'connection_id', 'approval_id', 'state', 'reserved_ts', 'issued_ts'])
    .expression((eb) =>
      eb
        .selectFrom('spaces')
        .innerJoin('space_memberships', (join) => join.onRef('space_memberships.space', '=', 'spaces.slug').on('space_memberships.member_handle', '=', me))
        .select([
          eb.val(me).as('member_handle'),
          eb.val(runId).as('run_id'),
          eb.val(slug).as('space'),
          eb.val(connection.id).as('connection_id'),
          sql<null>`null`.as('approval_id'),
          eb.val('reserved').as('state'),
          eb.val(ctx.clock.now().toISOString()).as('reserved_ts'),
          sql<null>`null`.as('issued_ts'),
        ])
        .where('spaces.slug', '=', slug)
        .where('spaces.status', '=', 'active')
        .where('space_memberships.state', '=', 'admitted'),
    )
    .onConflict((oc) => oc.columns(['member_handle', 'run_id']).doNothing())
    .returning('run_id')
    .executeTakeFirst();
  if (!reserved) return undefined;
  const ttl = Math.min(input.ttl_seconds ?? DEFAULT_TICKET_TTL, connection.maxTtlSeconds, TICKET_TTL_CEILING);
  return { member: actor, connection, request, runId, taskId: null, approvalId: null, ttl, operator: principal === null ? null : memberId(ctx, principal) };
}

async function reserve(tx: Tx, ctx: IssuanceDeps, actor: Actor, slug: string, input: CallInput, runId: string): Promise<Reservation> {
  const { member } = await admittedMember(tx.db, actor, slug, { active: true });
  const me = member.member.handle;
  const connection = ctx.credentialConnections.find(slug, input.connection_id);
  if (!connection || !admitsMember(connection, member.member)) {
    throw refuse('connection_not_found', `Space ${slug} has no connection ${input.connection_id} that ${me} may use`);
  }
  checkPurpose(input.purpose);
  const request = canonicalRequest(input.request);

  const taskId = input.task_id ?? null;
  if (taskId === null && connection.requireTask) throw refuse('task_required', `connection ${connection.id} needs the task_id of a task you have claimed`);
  if (taskId !== null) {
    const task = await tx.db.selectFrom('tasks').select(['claimant', 'status']).where('space', '=', slug).where('id', '=', taskId).executeTakeFirst();
    if (!task || task.claimant !== me) throw refuse('task_not_claimed', `${me} holds no claim on task ${taskId} of Space ${slug}`);
  }

  const approvalId = input.approval_id ?? null;
  if (approvalId === null && connection.approvalRequiredMethods.includes(request.method)) {
    throw refuse('approval_required', `${request.method} through connection ${connection.id} needs an approval_id from an Owner or Host`);
  }
  if (approvalId !== null) {
    const row = await tx.db.selectFrom('credential_approvals').selectAll().where('id', '=', approvalId).executeTakeFirst();
    judgeApproval(row, { space: slug, connection_id: connection.id, member_handle: me, task_id: taskId, run_id: runId, purpose: input.purpose, request }, tx.now);
  }

  // The run's primary key refuses a reused run id in the insert itself; the
  // approval is consumed after it, so a reused run id is refused as such (and,
  // the transaction rolled back, uses no approval up).
  const reserved = await tx.db
    .insertInto('credential_runs')
    .values({
      member_handle: me,
      run_id: runId,
      space: slug,
      connection_id: connection.id,
      approval_id: approvalId,
      state: 'reserved',
      reserved_ts: tx.now.toISOString(),
      issued_ts: null,
    })
    .onConflict((oc) => oc.columns(['member_handle', 'run_id']).doNothing())
    .returning('run_id')
    .executeTakeFirst();
  if (!reserved) throw refuse('run_id_reused', `run_id ${runId} already has a ticket; a run id is used once (reconcile with the provider instead of repeating it)`);
  if (approvalId !== null) {
    const consumed = await tx.db
      .updateTable('credential_approvals')
      .set({ consumed_ts: tx.now.toISOString() })
      .where('id', '=', approvalId)
      .where('consumed_ts', 'is', null)
      .executeTakeFirst();
    if (Number(consumed.numUpdatedRows) !== 1) throw refuse('approval_consumed', `approval ${approvalId} has already been used`);
  }

  const ttl = Math.min(input.ttl_seconds ?? DEFAULT_TICKET_TTL, connection.maxTtlSeconds, TICKET_TTL_CEILING);
  const principal = await principalOf(tx.db, member.member);
  const operator = principal === null ? null : memberId(ctx, principal);
  return { member, connection, request, runId, taskId, approvalId, ttl, operator };
}

/** Undoes a reservation the gateway did not turn into a ticket, or a ticket only this process held and dropped unused. */
async function releaseRun(tx: Tx, handle: string, runId: string, approvalId: string | null, state: 'reserved' | 'issued'): Promise<void> {
  await tx.db.deleteFrom('credential_runs').where('member_handle', '=', handle).where('run_id', '=', runId).where('state', '=', state).execute();
  if (approvalId !== null) await tx.db.updateTable('credential_approvals').set({ consumed_ts: null }).where('id', '=', approvalId).execute();
}

/** A fresh run id: 128 random bits, in the run-id alphabet. */
function newRunId(): string {
  return `run-${base32(randomBytes(16))}`;
}

function memberId(ctx: IssuanceDeps, handle: string): string {
  return `${ctx.config.baseUrl}/v0/members/${handle}`;
}
