import { Value } from '@sinclair/typebox/value';
import type { Logger } from 'pino';
import { callAnswerBytes, CallResult, GatewayErrorBody, MAX_CALL_ANSWER_BYTES, RETRY_LATER_SECONDS, TicketIssued, type TicketIssueRequest } from '../shared/gateway-wire.js';
import { isGatewayErrorCode, refuse } from './refusal.js';

/**
 * The service's two requests to the credential gateway. The gateway is the
 * host's own process (embedded on loopback, or at ATRIUM_GATEWAY_URL), so these
 * do not go through the egress policy, which guards member-chosen URLs.
 */
export interface GatewayEndpoint {
  url: string;
  issuerKey: string | undefined;
}

/** Issuance is a few database writes on the gateway's side; a gateway that takes longer is treated as down. */
const ISSUE_TIMEOUT_MS = 10_000;
/**
 * A call is bounded by its destination's `timeoutMs`, which only the gateway
 * knows; this is a ceiling above any sensible one, so the gateway's own
 * `upstream_timeout` is what a caller normally sees.
 */
const CALL_TIMEOUT_MS = 120_000;
/** An issuance answer is a ticket and its expiry; anything longer is not one. */
const ISSUE_ANSWER_BYTES = 64 * 1024;

const RETRY_AFTER = { 'retry-after': '5' };

export async function issueTicket(gateway: GatewayEndpoint, body: TicketIssueRequest, log: Logger): Promise<TicketIssued> {
  if (gateway.issuerKey === undefined) {
    log.error('credential gateway: no issuer key is configured (ATRIUM_GATEWAY_ISSUER_KEY)');
    throw refuse('gateway_unavailable', 'the credential gateway is not configured on this host', RETRY_AFTER);
  }
  const answer = await post(`${gateway.url}/v1/tickets`, body, { authorization: `Bearer ${gateway.issuerKey}` }, { timeoutMs: ISSUE_TIMEOUT_MS, maxBytes: ISSUE_ANSWER_BYTES }, log);
  if (answer.status === 201 && Value.Check(TicketIssued, answer.json)) return answer.json;
  // The issuer key is the host's own secret: its refusal is a misconfiguration, not the caller's fault.
  if (answer.status === 401) {
    log.error('credential gateway refused the issuer key: ATRIUM_GATEWAY_ISSUER_KEY differs between the service and the gateway');
    throw refuse('gateway_unavailable', 'the credential gateway refused this host', RETRY_AFTER);
  }
  throw passOn(answer, log);
}

/** A call's result, and (when the gateway answered in the canonical form) the exact JSON text REST answers with. */
export interface CallAnswer {
  result: CallResult & { run_id: string };
  json: string | undefined;
}

/**
 * Uses a ticket at once, for the caller. The ticket was issued and recorded;
 * if the answer is lost, the call may or may not have reached the provider,
 * and the run id is what the caller reconciles with (it cannot be reused).
 */
export async function callWithTicket(gateway: GatewayEndpoint, ticket: string, runId: string, maxResponseBytes: number, log: Logger): Promise<CallAnswer> {
  const lead = `{"run_id":${JSON.stringify(runId)},`;
  // No more than the ticket's destination can answer, which is what this process made room for.
  const maxBytes = Math.min(callAnswerBytes(maxResponseBytes), MAX_CALL_ANSWER_BYTES);
  const answer = await post(
    `${gateway.url}/v1/call`,
    { ticket },
    {},
    { timeoutMs: CALL_TIMEOUT_MS, maxBytes, lead },
    log,
    'the call may or may not have reached the provider; reconcile by run_id',
  );
  if (answer.status === 200 && answer.text !== undefined) {
    const canonical = canonicalAnswer(answer.text, runId);
    if (canonical !== undefined) return { result: canonical, json: answer.text };
    let json: unknown;
    try {
      json = JSON.parse(answer.text);
    } catch {
      json = undefined;
    }
    if (typeof json === 'object' && json !== null) {
      const { run_id: _ours, ...rest } = json as Record<string, unknown>;
      if (Value.Check(CallResult, rest) && BASE64.test(rest.bodyBase64)) return { result: { run_id: runId, ...rest }, json: undefined };
    }
  }
  throw passOn(answer, log);
}

/** Standard base64, as CallResult carries the body. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BODY_KEY = '"bodyBase64":"';

/**
 * The call's result when `text` (the gateway's answer with our run id in
 * front) is exactly the canonical CallResult JSON the gateway writes: then the
 * text itself is the REST answer and the body is a slice of it, never parsed,
 * copied or escaped again (the body is most of the answer, and the provider's
 * may be tens of megabytes). Only the small rest is parsed, checked, and
 * compared with its own serialisation, so nothing but that exact form passes;
 * any other answer is parsed and checked whole.
 */
function canonicalAnswer(text: string, runId: string): (CallResult & { run_id: string }) | undefined {
  const start = text.indexOf(BODY_KEY) + BODY_KEY.length;
  const end = text.indexOf('"', start);
  if (start < BODY_KEY.length || end < 0) return undefined;
  const bodyBase64 = text.slice(start, end);
  if (!BASE64.test(bodyBase64)) return undefined;
  const rest = text.slice(0, start) + text.slice(end);
  let parsed: unknown;
  try {
    parsed = JSON.parse(rest);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { run_id, status, headers, provider_request_id } = parsed as Record<string, unknown>;
  const result = { status, headers, bodyBase64: '', provider_request_id };
  if (run_id !== runId || !Value.Check(CallResult, result)) return undefined;
  if (JSON.stringify({ run_id, ...result }) !== rest) return undefined;
  return { run_id: runId, ...result, bodyBase64 };
}

interface Answer {
  status: number;
  json: unknown;
  /** A 200 answer's text, `lead` in place of its opening brace, when a lead was asked for. */
  text: string | undefined;
  retryAfter: string | null;
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  limits: { timeoutMs: number; maxBytes: number; lead?: string },
  log: Logger,
  lost?: string,
): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(limits.timeoutMs),
    });
  } catch (err) {
    log.warn({ err: { message: (err as Error).message }, gateway: new URL(url).origin }, 'credential gateway unreachable');
    throw refuse('gateway_unavailable', lost ? `the credential gateway did not answer: ${lost}` : 'the credential gateway cannot be reached', RETRY_AFTER);
  }
  const lead = res.status === 200 ? limits.lead : undefined;
  let text: string | undefined;
  try {
    text = await readText(res, limits.maxBytes, lead);
  } catch (err) {
    if (err instanceof AnswerTooLong) {
      log.error({ gateway: new URL(url).origin, max_bytes: limits.maxBytes }, 'credential gateway answered with more than the service reads');
      throw refuse('response_too_large', `the credential gateway's answer is longer than this host reads (${limits.maxBytes} bytes)${lost ? `; ${lost}` : ''}`);
    }
    text = undefined;
  }
  if (lead !== undefined) return { status: res.status, json: undefined, text, retryAfter: res.headers.get('retry-after') };
  let json: unknown;
  try {
    json = text === undefined ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text: undefined, retryAfter: res.headers.get('retry-after') };
}

class AnswerTooLong extends Error {}

/**
 * The answer's body as text, never more than `maxBytes` of it: a gateway that
 * sends more is not one to trust with this host's memory. An answer of
 * declared length (the gateway declares its own) is read into one buffer of
 * that size as it arrives, rather than gathered and joined into a second copy;
 * with `lead`, that buffer starts with it in place of the answer's opening
 * brace, so that the text is made once, flat, and needs no joining later.
 */
async function readText(res: Response, maxBytes: number, lead = ''): Promise<string> {
  const declaredText = res.headers.get('content-length');
  const declared = declaredText !== null && /^\d+$/.test(declaredText) ? Number(declaredText) : undefined;
  if (declared !== undefined && declared > maxBytes) {
    await res.body?.cancel();
    throw new AnswerTooLong();
  }
  // The answer's first byte (its brace) lands on the lead's last, which is written over it.
  const offset = lead === '' ? 0 : Buffer.byteLength(lead) - 1;
  const whole = declared !== undefined ? Buffer.allocUnsafe(offset + declared) : undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new AnswerTooLong();
    if (whole === undefined) chunks.push(chunk);
    else if (size <= declared!) whole.set(chunk, offset + size - chunk.byteLength);
    else throw new Error('the answer is longer than its Content-Length');
  }
  const bytes = whole !== undefined ? whole.subarray(0, offset + size) : Buffer.concat([Buffer.alloc(offset), ...chunks], offset + size);
  if (lead !== '') {
    if (bytes[offset] !== 0x7b) return '';
    bytes.write(lead, 0, 'utf8');
  }
  // The bytes go out of reach as the text is returned.
  return bytes.toString('utf8');
}

/** A gateway refusal keeps its code and status (and a load refusal its Retry-After); anything else from it is a gateway in trouble. */
function passOn(answer: Answer, log: Logger): Error {
  // The gateway's own unknown-route answer means a misconfigured gateway URL, not a refusal of the call.
  if (Value.Check(GatewayErrorBody, answer.json) && isGatewayErrorCode(answer.json.code) && answer.json.code !== 'route_not_found') {
    const { code, detail } = answer.json;
    const later = RETRY_LATER_SECONDS[code];
    const retryAfter: Record<string, string> = later === undefined ? {} : { 'retry-after': answer.retryAfter !== null && /^\d{1,5}$/.test(answer.retryAfter) ? answer.retryAfter : String(later) };
    return refuse(code, detail.startsWith(`${code}: `) ? detail.slice(code.length + 2) : detail, retryAfter);
  }
  log.error({ status: answer.status }, 'credential gateway answered outside its protocol');
  return refuse('gateway_unavailable', 'the credential gateway answered unexpectedly', RETRY_AFTER);
}
