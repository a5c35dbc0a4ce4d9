import { Value } from '@sinclair/typebox/value';
import type { Logger } from 'pino';
import { CallResult, GatewayErrorBody, TicketIssued, type TicketIssueRequest } from '../shared/gateway-wire.js';
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

const RETRY_AFTER = { 'retry-after': '5' };

export async function issueTicket(gateway: GatewayEndpoint, body: TicketIssueRequest, log: Logger): Promise<TicketIssued> {
  if (gateway.issuerKey === undefined) {
    log.error('credential gateway: no issuer key is configured (ATRIUM_GATEWAY_ISSUER_KEY)');
    throw refuse('gateway_unavailable', 'the credential gateway is not configured on this host', RETRY_AFTER);
  }
  const answer = await post(`${gateway.url}/v1/tickets`, body, { authorization: `Bearer ${gateway.issuerKey}` }, ISSUE_TIMEOUT_MS, log);
  if (answer.status === 201 && Value.Check(TicketIssued, answer.json)) return answer.json;
  // The issuer key is the host's own secret: its refusal is a misconfiguration, not the caller's fault.
  if (answer.status === 401) {
    log.error('credential gateway refused the issuer key: ATRIUM_GATEWAY_ISSUER_KEY differs between the service and the gateway');
    throw refuse('gateway_unavailable', 'the credential gateway refused this host', RETRY_AFTER);
  }
  throw passOn(answer, log);
}

/**
 * Uses a ticket at once, for the caller. The ticket was issued and recorded;
 * if the answer is lost, the call may or may not have reached the provider,
 * and the run id is what the caller reconciles with (it cannot be reused).
 */
export async function callWithTicket(gateway: GatewayEndpoint, ticket: string, log: Logger): Promise<CallResult> {
  const answer = await post(`${gateway.url}/v1/call`, { ticket }, {}, CALL_TIMEOUT_MS, log, 'the call may or may not have reached the provider; reconcile by run_id');
  if (answer.status === 200 && Value.Check(CallResult, answer.json)) return answer.json;
  throw passOn(answer, log);
}

interface Answer {
  status: number;
  json: unknown;
}

async function post(url: string, body: unknown, headers: Record<string, string>, timeoutMs: number, log: Logger, lost?: string): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    log.warn({ err: { message: (err as Error).message }, gateway: new URL(url).origin }, 'credential gateway unreachable');
    throw refuse('gateway_unavailable', lost ? `the credential gateway did not answer: ${lost}` : 'the credential gateway cannot be reached', RETRY_AFTER);
  }
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

/** A gateway refusal keeps its code and status; anything else from it is a gateway in trouble. */
function passOn(answer: Answer, log: Logger): Error {
  if (Value.Check(GatewayErrorBody, answer.json) && isGatewayErrorCode(answer.json.code)) {
    const { code, detail } = answer.json;
    return refuse(code, detail.startsWith(`${code}: `) ? detail.slice(code.length + 2) : detail);
  }
  log.error({ status: answer.status }, 'credential gateway answered outside its protocol');
  return refuse('gateway_unavailable', 'the credential gateway answered unexpectedly', RETRY_AFTER);
}
