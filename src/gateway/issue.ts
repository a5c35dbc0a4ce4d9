import { purposeRefusal, type TicketIssued, type TicketIssueRequest } from '../shared/gateway-wire.js';
import type { GatewayContext } from './context.js';
import { checkDestinationPolicy } from './destinations.js';
import { GatewayError } from './errors.js';
import { entry, type LedgerEntry } from './ledger.js';
import { checkHeaders, checkUrl, decodeBody } from './request-shape.js';
import { keptText, type BoundCall } from './tickets.js';

const SWEEP_EVERY_MS = 60_000;

/**
 * `POST /v1/tickets`: the service's checked request, judged again by the
 * gateway's own destination policy. Every answer here stands on a ledger
 * record (`issued` or `denied`): when the ledger cannot be written the answer
 * is 503 `audit_unavailable` and no ticket exists.
 */
export async function issueTicket(ctx: GatewayContext, req: TicketIssueRequest): Promise<TicketIssued> {
  // Refused like a malformed body, before anything is recorded: the ledger
  // would otherwise carry the very characters the rule keeps out of it.
  const purposeRefused = purposeRefusal(req.purpose);
  if (purposeRefused !== undefined) throw new GatewayError('invalid_request', purposeRefused);
  const now = ctx.now();
  const about = issuanceFields(req);
  let call: BoundCall;
  try {
    const destination = ctx.destinations.get(req.destination_id);
    if (!destination) throw new GatewayError('destination_denied', `no destination is named ${JSON.stringify(req.destination_id)}`);
    const url = checkUrl(req.request.url);
    checkDestinationPolicy(destination, url, req.request.method);
    checkHeaders(req.request.headers, destination.requestHeaders, destination.credential.header);
    decodeBody(req.request.body_base64);
    call = {
      request_id: req.request_id,
      space: req.space,
      connection_id: req.connection_id,
      destination_id: destination.id,
      member: req.member,
      member_type: req.member_type,
      operator: req.operator,
      task_id: req.task_id,
      run_id: req.run_id,
      purpose: req.purpose,
      approval_id: req.approval_id,
      method: req.request.method,
      url: url.href,
      headers: req.request.headers,
      body_base64: req.request.body_base64 ?? null,
      timeout_ms: destination.timeoutMs,
      max_response_bytes: destination.maxResponseBytes,
    };
  } catch (err) {
    if (err instanceof GatewayError) await record(ctx, entry('denied', { ...about, error_code: err.code }), now);
    throw err;
  }
  const issued = await ctx.signer.issue(call, req.ttl_seconds, now);
  try {
    // Tickets past their expiry can no longer be used or replayed; their kept
    // requests go, at most once a minute rather than with every ticket.
    if (now.getTime() - ctx.sweptAt >= SWEEP_EVERY_MS) {
      await ctx.store.db.deleteFrom('gateway_pending_tickets').where('expires_at', '<', Math.floor(now.getTime() / 1000)).execute();
      ctx.sweptAt = now.getTime();
    }
    // The kept request commits with the `issued` record or not at all.
    const kept = { jti: issued.jti, bound: keptText(call), expires_at: issued.expiresAt, consumed_at: null };
    await ctx.ledger.append(entry('issued', { ...about, ticket_fingerprint: issued.fingerprint }), now, kept);
  } catch (err) {
    throw auditUnavailable(ctx, err);
  }
  return { ticket: issued.ticket, expires_ts: new Date(issued.expiresAt * 1000).toISOString(), max_response_bytes: call.max_response_bytes };
}

/** A record about a request: who, for what, where to; never header values, query values or the body. */
export function issuanceFields(req: TicketIssueRequest): Partial<LedgerEntry> {
  return {
    request_id: req.request_id,
    space: req.space,
    connection_id: req.connection_id,
    member: req.member,
    member_type: req.member_type,
    operator: req.operator,
    task_id: req.task_id,
    run_id: req.run_id,
    purpose: req.purpose,
    approval_id: req.approval_id,
    destination_id: req.destination_id,
    method: req.request.method,
    ...hostAndPath(req.request.url),
  };
}

/** The URL's host and its path without the query, when it is an http(s) URL at all. */
export function hostAndPath(text: string): { host: string | null; path: string | null } {
  try {
    const url = new URL(text);
    if (url.protocol === 'https:' || url.protocol === 'http:') return { host: url.host, path: url.pathname };
  } catch {
    // Not a URL: nothing about it is recorded.
  }
  return { host: null, path: null };
}

/** Appends one record on its own; a ledger that cannot be written is 503 `audit_unavailable`. */
export async function record(ctx: GatewayContext, content: LedgerEntry, now: Date): Promise<void> {
  try {
    await ctx.ledger.append(content, now);
  } catch (err) {
    throw auditUnavailable(ctx, err);
  }
}

export function auditUnavailable(ctx: GatewayContext, err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  ctx.log.error({ err: { message: err instanceof Error ? err.message : String(err) } }, 'the ledger store failed');
  return new GatewayError('audit_unavailable', 'the audit ledger cannot be written; nothing was issued or sent');
}
