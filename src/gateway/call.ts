import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { JWTPayload } from 'jose';
import { performance } from 'node:perf_hooks';
import { EgressFailed, EgressRefused, sendEgress } from '../egress/request.js';
import { systemResolver } from '../egress/target.js';
import type { GatewayErrorCode } from '../shared/gateway-wire.js';
import type { GatewayContext } from './context.js';
import type { Destination } from './destinations.js';
import { GatewayError } from './errors.js';
import { auditUnavailable, hostAndPath, record } from './issue.js';
import { entry, type LedgerEntry } from './ledger.js';
import { boundFromClaims, keptText, matchesTicket, TicketExpired, ticketFingerprint, type BoundCall } from './tickets.js';

/**
 * A brokered call's answer (CallResult, with the body as bytes). It keeps its
 * place among the calls in flight until `release`, once it has been written
 * out: until then the gateway still holds the body. `release` also commits
 * the call's `brokered` record, so the answer never waits for it.
 */
export interface BrokeredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  provider_request_id: string | null;
  release: () => void;
}

/** An answer as the upstream gave it, and the record of its outcome, still to be committed. */
type SentCall = Omit<BrokeredAnswer, 'release'> & { outcome: LedgerEntry };

/**
 * `POST /v1/call`: the ticket is the only credential. It takes a place among
 * the calls in flight (limits.ts) before it is used, so a call refused for
 * load leaves the ticket usable. It is consumed, and `started` committed, in
 * one transaction before anything reaches the upstream: a second use finds it
 * consumed (409 `ticket_replayed`), and a call that was sent always has its
 * `started` record. Then the request goes out exactly as bound, with the
 * credential added, through the egress rules.
 */
export async function callWithTicket(ctx: GatewayContext, ticket: string): Promise<BrokeredAnswer> {
  const now = ctx.now();
  let verified;
  try {
    verified = await ctx.signer.verify(ticket, now);
  } catch (err) {
    if (err instanceof TicketExpired && err.jti !== undefined) {
      const fingerprint = ticketFingerprint(ticket);
      if ((await recordAboutKept(ctx, err.jti, fingerprint, err.claims, 'ticket_expired', now)) === 'altered') throw altered(ctx, fingerprint);
    }
    throw err;
  }
  const { jti, fingerprint, claims } = verified;
  // The claims are the gateway's own, signed at issuance.
  const release = ctx.limits.take({
    member: claims.sub as string,
    space: claims.space as string,
    connectionId: claims.connection_id as string,
    maxResponseBytes: claims.max_response_bytes as number,
  });
  let sent: SentCall;
  try {
    sent = await useAndSend(ctx, jti, fingerprint, claims, now);
  } catch (err) {
    release();
    throw err;
  }
  const { outcome, ...answer } = sent;
  let released = false;
  return {
    ...answer,
    release: () => {
      if (released) return;
      released = true;
      release();
      void recordOutcome(ctx, outcome);
    },
  };
}

async function useAndSend(ctx: GatewayContext, jti: string, fingerprint: string, claims: JWTPayload, now: Date): Promise<SentCall> {
  // A ticket for no headers and no body is its own request: one statement
  // consumes it, provided the store still keeps exactly that request, and
  // commits `started`. Anything else (a replay, a store that keeps something
  // else) takes the path below, which tells them apart.
  const signed = boundFromClaims(claims);
  if (signed !== undefined) {
    let consumed;
    try {
      const started = entry('started', { ...callFields(signed), ticket_fingerprint: fingerprint });
      consumed = await ctx.ledger.consumeAndAppend({ jti, bound: keptText(signed), consumedAt: now.toISOString() }, started, now);
    } catch (err) {
      throw auditUnavailable(ctx, err);
    }
    if (consumed) return send(ctx, signed, fingerprint);
  }
  let call: BoundCall | undefined;
  try {
    call = await ctx.ledger.transaction(async (trx, append) => {
      // Consuming the ticket reads back its kept request in the same statement.
      const consumed = await trx
        .updateTable('gateway_pending_tickets')
        .set({ consumed_at: now.toISOString() })
        .where('jti', '=', jti)
        .where('consumed_at', 'is', null)
        .returning('bound')
        .executeTakeFirst();
      if (consumed === undefined) return undefined;
      const kept = JSON.parse(consumed.bound) as BoundCall;
      // The store must hold the very request the signature binds; otherwise nothing is sent or recorded.
      if (!matchesTicket(kept, claims)) throw altered(ctx, fingerprint);
      await append(entry('started', { ...callFields(kept), ticket_fingerprint: fingerprint }), now);
      return kept;
    });
  } catch (err) {
    throw auditUnavailable(ctx, err);
  }
  if (call === undefined) {
    const kept = await recordAboutKept(ctx, jti, fingerprint, claims, 'ticket_replayed', now);
    if (kept === 'recorded') throw new GatewayError('ticket_replayed', 'the ticket was already used');
    if (kept === 'altered') throw altered(ctx, fingerprint);
    throw new GatewayError('ticket_invalid', 'the gateway keeps no request for this ticket');
  }
  return send(ctx, call, fingerprint);
}

async function send(ctx: GatewayContext, call: BoundCall, fingerprint: string): Promise<SentCall> {
  const about = { ...callFields(call), ticket_fingerprint: fingerprint };
  const destination = ctx.destinations.get(call.destination_id);
  const secret = ctx.config.credentials.get(call.destination_id);
  if (!destination || secret === undefined) {
    await record(ctx, entry('denied', { ...about, error_code: 'destination_denied' }), ctx.now());
    throw new GatewayError('destination_denied', `destination ${call.destination_id} is no longer configured`);
  }
  const body = call.body_base64 === null ? undefined : Buffer.from(call.body_base64, 'base64');
  const requestBytes = body?.length ?? 0;
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  let response;
  try {
    response = await sendEgress(
      { url: call.url, method: call.method, headers: { ...call.headers, [destination.credential.header]: destination.credential.prefix + secret }, ...(body ? { body } : {}) },
      ctx.config.egress,
      { timeoutMs: call.timeout_ms, maxResponseBytes: call.max_response_bytes },
      ctx.resolver ?? systemResolver,
      ctx.upstreams,
    );
  } catch (err) {
    const failure = describeFailure(err);
    await recordOutcome(ctx, entry(failure.code === 'address_denied' ? 'denied' : 'error', { ...about, error_code: failure.code, latency_ms: latency(), request_bytes: requestBytes }));
    throw new GatewayError(failure.code, failure.detail);
  }
  const headers = allowedHeaders(response.headers, destination);
  const providerRequestId = destination.providerRequestIdHeader !== undefined ? (headers[destination.providerRequestIdHeader] ?? null) : null;
  const outcome = entry('brokered', {
    ...about,
    status: response.status,
    latency_ms: latency(),
    request_bytes: requestBytes,
    response_bytes: response.body.length,
    provider_request_id: providerRequestId,
  });
  return { status: response.status, headers, body: response.body, provider_request_id: providerRequestId, outcome };
}

/** Bytes of body per piece of the answer: a multiple of 3, so each piece is whole base64. */
const PIECE_BYTES = 3 * 16 * 1024;

/**
 * The answer as the CallResult JSON, written out piece by piece as the caller
 * reads it: the body is encoded 48 KiB at a time, never held as one base64
 * string, nor inside one JSON string, beside the bytes it came from. The
 * length is known beforehand, so the answer declares it.
 */
export function callResultStream(answer: Omit<BrokeredAnswer, 'release'>): { stream: Readable; length: number } {
  const head = `{"status":${answer.status},"headers":${JSON.stringify(answer.headers)},"bodyBase64":"`;
  const tail = `","provider_request_id":${JSON.stringify(answer.provider_request_id)}}`;
  const { body } = answer;
  function* pieces(): Generator<string> {
    yield head;
    for (let at = 0; at < body.length; at += PIECE_BYTES) yield body.subarray(at, at + PIECE_BYTES).toString('base64');
    yield tail;
  }
  const length = Buffer.byteLength(head) + Math.ceil(body.length / 3) * 4 + Buffer.byteLength(tail);
  return { stream: Readable.from(pieces(), { objectMode: false }), length };
}

function describeFailure(err: unknown): { code: GatewayErrorCode; detail: string } {
  if (err instanceof EgressRefused) return { code: 'address_denied', detail: err.reason };
  if (err instanceof EgressFailed) {
    if (err.kind === 'timeout') return { code: 'upstream_timeout', detail: err.reason };
    if (err.kind === 'too_large') return { code: 'response_too_large', detail: err.reason };
    return { code: 'upstream_error', detail: err.reason };
  }
  return { code: 'upstream_error', detail: 'the request failed' };
}

/** Only the destination's `responseHeaders`, by lower-case name; a repeated header is joined with ", ". */
function allowedHeaders(incoming: IncomingHttpHeaders, destination: Destination): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || !destination.responseHeaders.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * The outcome of a call that was sent (or refused at its address). The
 * upstream has answered by now, so a ledger that cannot take the record does
 * not change the answer: the `started` record already says a call went out.
 * A failure's record is committed before its refusal is answered; a brokered
 * answer's once the answer has been written out (or its caller has gone), so
 * that the answer never waits for it. Ledger reads and the gateway's stop
 * wait for it (LedgerChain.idle).
 */
async function recordOutcome(ctx: GatewayContext, content: LedgerEntry): Promise<void> {
  try {
    await ctx.ledger.append(content, ctx.now());
  } catch (err) {
    ctx.log.error({ err: { message: err instanceof Error ? err.message : String(err) }, run_id: content.run_id, decision: content.decision }, 'the ledger could not record a call outcome');
  }
}

/**
 * Records a refusal about a kept ticket with its bound fields: `gone` when the
 * gateway keeps no request under that id, `altered` when the kept request is
 * not the one the ticket's signature binds (then nothing is recorded: the
 * ledger would carry what someone wrote into the store).
 */
async function recordAboutKept(ctx: GatewayContext, jti: string, fingerprint: string, claims: JWTPayload, code: GatewayErrorCode, now: Date): Promise<'recorded' | 'gone' | 'altered'> {
  let row;
  try {
    row = await ctx.store.db.selectFrom('gateway_pending_tickets').select('bound').where('jti', '=', jti).executeTakeFirst();
  } catch (err) {
    throw auditUnavailable(ctx, err);
  }
  if (!row) return 'gone';
  const kept = JSON.parse(row.bound) as BoundCall;
  if (!matchesTicket(kept, claims)) return 'altered';
  await record(ctx, entry('denied', { ...callFields(kept), error_code: code, ticket_fingerprint: fingerprint }), now);
  return 'recorded';
}

/** Someone with write access to the store changed a kept request: refused as an invalid ticket, and logged for the operator. */
function altered(ctx: GatewayContext, fingerprint: string): GatewayError {
  ctx.log.error({ ticket_fingerprint: fingerprint }, 'the request kept for a ticket is not the one the ticket binds: the gateway store was altered; nothing was sent or recorded');
  return new GatewayError('ticket_invalid', 'the ticket does not match the request kept for it');
}

/** The ledger fields a kept request gives: its identity fields, method, host and path (never query, headers or body). */
function callFields(call: BoundCall): Partial<LedgerEntry> {
  return {
    request_id: call.request_id,
    space: call.space,
    connection_id: call.connection_id,
    member: call.member,
    member_type: call.member_type,
    operator: call.operator,
    task_id: call.task_id,
    run_id: call.run_id,
    purpose: call.purpose,
    approval_id: call.approval_id,
    destination_id: call.destination_id,
    method: call.method,
    ...hostAndPath(call.url),
  };
}
