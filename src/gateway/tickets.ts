import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { errors, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import type { HttpMethod } from './destinations.js';
import { GatewayError } from './errors.js';

/**
 * Everything one ticket permits (one use, one expiry, one connection and
 * destination, one member, accountable principal and run, optionally one task
 * and approval, one method, one exact URL, one header set, one body, the
 * destination's limits). The gateway keeps it, body bytes included, until the
 * ticket is used or expires; the ticket carries hashes of the headers and body
 * so that neither can be swapped in the store without the signature failing to match.
 */
export interface BoundCall {
  request_id: string;
  space: string;
  connection_id: string;
  destination_id: string;
  member: string;
  member_type: 'human' | 'agent';
  operator: string | null;
  task_id: number | null;
  run_id: string;
  purpose: string;
  approval_id: string | null;
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body_base64: string | null;
  timeout_ms: number;
  max_response_bytes: number;
}

export const TICKET_ISSUER = 'atrium-gateway';
export const TICKET_AUDIENCE = 'atrium-gateway/v1/call';
export const MAX_TICKET_SECONDS = 300;

/**
 * The claims a ticket signs, beside `iss`, `aud`, `jti`, `iat` and `exp`:
 * every field of the kept request, so that nothing the gateway sends or
 * records can be rewritten in its store without the signature failing to match.
 */
interface BindingClaims {
  request_id: string;
  space: string;
  connection_id: string;
  destination_id: string;
  sub: string;
  member_type: string;
  operator: string | null;
  task_id: number | null;
  run_id: string;
  purpose: string;
  approval_id: string | null;
  method: string;
  url: string;
  headers_sha256: string;
  body_sha256: string;
  timeout_ms: number;
  max_response_bytes: number;
}

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function bindingClaims(call: BoundCall): BindingClaims {
  return {
    request_id: call.request_id,
    space: call.space,
    connection_id: call.connection_id,
    destination_id: call.destination_id,
    sub: call.member,
    member_type: call.member_type,
    operator: call.operator,
    task_id: call.task_id,
    run_id: call.run_id,
    purpose: call.purpose,
    approval_id: call.approval_id,
    method: call.method,
    url: call.url,
    headers_sha256: sha256Hex(canonicalize(call.headers)!),
    body_sha256: sha256Hex(call.body_base64 === null ? Buffer.alloc(0) : Buffer.from(call.body_base64, 'base64')),
    timeout_ms: call.timeout_ms,
    max_response_bytes: call.max_response_bytes,
  };
}

/** The one-way fingerprint the ledger holds instead of the ticket. */
export function ticketFingerprint(ticket: string): string {
  return sha256Hex(ticket);
}

export interface IssuedTicket {
  ticket: string;
  jti: string;
  /** Unix seconds. */
  expiresAt: number;
  fingerprint: string;
}

export interface VerifiedTicket {
  jti: string;
  fingerprint: string;
  claims: JWTPayload;
}

/**
 * Signs and checks tickets with an Ed25519 key the gateway makes when it
 * starts and keeps only in memory: no one else can mint a ticket, and a
 * restart voids the tickets outstanding (they live five minutes at most).
 */
export class TicketSigner {
  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    private readonly kid: string,
  ) {}

  static async generate(): Promise<TicketSigner> {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    return new TicketSigner(privateKey, publicKey, randomUUID());
  }

  async issue(call: BoundCall, ttlSeconds: number, now: Date): Promise<IssuedTicket> {
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = issuedAt + Math.min(ttlSeconds, MAX_TICKET_SECONDS);
    const jti = randomUUID();
    const ticket = await new SignJWT({ ...bindingClaims(call) })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'atrium-ticket+jwt', kid: this.kid })
      .setIssuer(TICKET_ISSUER)
      .setAudience(TICKET_AUDIENCE)
      .setJti(jti)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.privateKey);
    return { ticket, jti, expiresAt, fingerprint: ticketFingerprint(ticket) };
  }

  /** Checks signature, issuer, audience and expiry; 401 `ticket_invalid` or `ticket_expired` otherwise. */
  async verify(ticket: string, now: Date): Promise<VerifiedTicket> {
    try {
      const { payload } = await jwtVerify(ticket, this.publicKey, {
        issuer: TICKET_ISSUER,
        audience: TICKET_AUDIENCE,
        algorithms: ['EdDSA'],
        typ: 'atrium-ticket+jwt',
        currentDate: now,
        requiredClaims: ['jti', 'exp', 'iat'],
      });
      return { jti: payload.jti!, fingerprint: ticketFingerprint(ticket), claims: payload };
    } catch (err) {
      // jose checks the signature before the expiry: these claims are the gateway's own.
      if (err instanceof errors.JWTExpired) throw new TicketExpired(typeof err.payload.jti === 'string' ? err.payload.jti : undefined, err.payload);
      throw new GatewayError('ticket_invalid', 'the ticket is not one this gateway issued');
    }
  }
}

/** A genuine ticket (its signature held) used after its expiry. */
export class TicketExpired extends GatewayError {
  constructor(
    readonly jti: string | undefined,
    readonly claims: JWTPayload,
  ) {
    super('ticket_expired', 'the ticket has expired');
  }
}

const NO_HEADERS_SHA256 = sha256Hex(canonicalize({})!);
const NO_BODY_SHA256 = sha256Hex(Buffer.alloc(0));

/** A kept request as the store holds it: its JSON, fields always in one order, so the same request always has the same text. */
export function keptText(call: BoundCall): string {
  const ordered: BoundCall = {
    request_id: call.request_id,
    space: call.space,
    connection_id: call.connection_id,
    destination_id: call.destination_id,
    member: call.member,
    member_type: call.member_type,
    operator: call.operator,
    task_id: call.task_id,
    run_id: call.run_id,
    purpose: call.purpose,
    approval_id: call.approval_id,
    method: call.method,
    url: call.url,
    headers: call.headers,
    body_base64: call.body_base64,
    timeout_ms: call.timeout_ms,
    max_response_bytes: call.max_response_bytes,
  };
  return JSON.stringify(ordered);
}

/**
 * The request a ticket binds, from its claims alone, when the signature
 * suffices: the claims carry every field but the headers and the body, which
 * they bind only by hash, so a ticket for no headers and no body needs nothing
 * from the store to be sent. Undefined when it binds either.
 */
export function boundFromClaims(claims: JWTPayload): BoundCall | undefined {
  if (claims.headers_sha256 !== NO_HEADERS_SHA256 || claims.body_sha256 !== NO_BODY_SHA256) return undefined;
  const call = {
    request_id: claims.request_id,
    space: claims.space,
    connection_id: claims.connection_id,
    destination_id: claims.destination_id,
    member: claims.sub,
    member_type: claims.member_type,
    operator: claims.operator,
    task_id: claims.task_id,
    run_id: claims.run_id,
    purpose: claims.purpose,
    approval_id: claims.approval_id,
    method: claims.method,
    url: claims.url,
    headers: {},
    body_base64: null,
    timeout_ms: claims.timeout_ms,
    max_response_bytes: claims.max_response_bytes,
  } as BoundCall;
  // The gateway signed these claims from such a call; anything else is not one of its tickets.
  return matchesTicket(call, claims) ? call : undefined;
}

/** Whether the kept request is the very one the ticket's signature binds. */
export function matchesTicket(call: BoundCall, claims: JWTPayload): boolean {
  const expected = bindingClaims(call);
  return (Object.keys(expected) as Array<keyof BindingClaims>).every((k) => claims[k] === expected[k]);
}
