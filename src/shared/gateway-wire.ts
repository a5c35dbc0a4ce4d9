import { Type, type Static } from '@sinclair/typebox';

/**
 * What the service and the credential gateway say to each other over HTTP, and
 * the shape of the gateway's audit ledger. The gateway process imports nothing
 * from the service but this file and the egress module, so this file must stay
 * free of service imports: it is the whole interface between two trust levels.
 */

/** Every refusal either side gives, with the one status each has everywhere. */
export const GATEWAY_ERROR_STATUS = {
  unauthorized: 401,
  ticket_invalid: 401,
  ticket_expired: 401,
  header_denied: 403,
  destination_denied: 403,
  address_denied: 403,
  approval_required: 403,
  approval_invalid: 403,
  task_not_claimed: 403,
  audit_disabled: 403,
  route_not_found: 404,
  connection_not_found: 404,
  ticket_replayed: 409,
  approval_consumed: 409,
  run_id_reused: 409,
  invalid_request: 422,
  url_invalid: 422,
  task_required: 422,
  too_many_calls: 429,
  upstream_error: 502,
  response_too_large: 502,
  gateway_unavailable: 503,
  gateway_busy: 503,
  audit_unavailable: 503,
  upstream_timeout: 504,
} as const;

export type GatewayErrorCode = keyof typeof GATEWAY_ERROR_STATUS;

/** Refusals that are about load, not the request: they carry `Retry-After` (seconds), at the gateway and passed on by the service. */
export const RETRY_LATER_SECONDS: Partial<Record<GatewayErrorCode, number>> = { too_many_calls: 1, gateway_busy: 1 };

/** No destination may let an answer be longer than this (`maxResponseBytes`), so no call's answer is. */
export const MAX_RESPONSE_BYTES_CEILING = 64 * 1024 * 1024;

/**
 * The longest `/v1/call` answer a well-behaved gateway sends: the longest body
 * in base64, with room for the status, the allowed headers (Node reads at most
 * 16 KiB of them) and the provider's request id. The service reads no more
 * than this from the gateway, whatever the gateway says.
 */
export const MAX_CALL_ANSWER_BYTES = callAnswerBytes(MAX_RESPONSE_BYTES_CEILING);

/**
 * The longest `/v1/call` answer for a destination whose answers are at most
 * `maxResponseBytes` long: its body in base64, and room for the status, the
 * allowed headers (Node reads at most 16 KiB of them) and the provider's
 * request id.
 */
export function callAnswerBytes(maxResponseBytes: number): number {
  return Math.ceil(maxResponseBytes / 3) * 4 + 1024 * 1024;
}

/** The gateway's `/v1` error body, exactly these two fields. */
export const GatewayErrorBody = Type.Object(
  { code: Type.String(), detail: Type.String() },
  { additionalProperties: false },
);
export type GatewayErrorBody = Static<typeof GatewayErrorBody>;

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Characters a declared purpose may not hold, as display names may not:
 * controls (Cc: C0, DEL and C1 such as NEL, and the escape that starts a
 * terminal sequence), format characters (Cf: bidi overrides, zero-width
 * characters), line and paragraph separators, lone surrogates. The purpose is
 * the one piece of member free text in the ledger, which people read in
 * terminals and logs; one line of visible text cannot pose as other records
 * or rewrite what is shown around it.
 */
const PURPOSE_REFUSED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Why a declared purpose is refused, or undefined when it is one line of visible text. */
export function purposeRefusal(purpose: string): string | undefined {
  const refused = PURPOSE_REFUSED.exec(purpose);
  if (refused) {
    const code = refused[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `purpose must be one line without control or format characters (found U+${code})`;
  }
  if (purpose.trim() === '') return 'purpose must not be blank';
  return undefined;
}

/**
 * Escapes in a path that servers and proxies decode differently: `/` `\\` `.`
 * `?` `#` `;` themselves, and `%` (`%252e` is `%2e` to one decoder and `.` to a
 * second).
 */
const ENCODED_DELIMITER = /%(2f|5c|2e|3f|23|3b|25)/i;
/** A `%` that does not start a two-digit escape: IIS reads `%u002e` as `.`. */
const LONE_PERCENT = /%(?![0-9a-f]{2})/i;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** What a segment must not become once decoded and compatibility-folded (`\uFF0F` is `/`, `\uFF0E` is `.`). */
const FOLDS_TO_DELIMITER = /[/\\;%?#]/;
/** A segment of dots (and spaces, which Windows drops at a name's end, as it drops trailing dots): `..`, `...`, `.. `. */
const DOT_SEGMENT = /^[. ]*\.[. ]*$/;
const CONTROL = /\p{Cc}/u;

/**
 * Why a URL path (as its WHATWG serialisation writes it) could reach a path
 * other than the one the destination policy allowed, or undefined when it
 * cannot. The policy compares the path as written; the upstream, or a proxy in
 * front of it, may first decode it (once or twice, leniently), fold it (Unicode
 * compatibility forms, Windows names), or cut matrix parameters off a segment
 * (`/v1/..;/admin` is `/admin` to Tomcat and Spring). A segment is refused when
 * any common reading of it could be a dot segment, a separator or a parameter:
 * `;`, a lone `%`, an escaped delimiter or `%`, escapes that are not well-formed
 * UTF-8 (overlong `%c0%ae` is `.` to a lenient decoder), escaped controls, or a
 * decoded, folded form holding a delimiter or made of dots. The service and the
 * gateway both apply it (`url_invalid`).
 */
export function pathRefusal(path: string): string | undefined {
  for (const segment of path.split('/')) {
    if (segment.includes(';')) return 'must not hold ";" (a matrix parameter: some servers cut it off the segment)';
    if (LONE_PERCENT.test(segment)) return 'must not hold a "%" that does not start a two-digit escape';
    if (ENCODED_DELIMITER.test(segment)) return 'must not hold an escaped /, \\, ., ?, #, ; or % (%2F %5C %2E %3F %23 %3B %25)';
    let decoded: string;
    try {
      decoded = STRICT_UTF8.decode(segmentBytes(segment));
    } catch {
      return 'must not hold escapes that are not well-formed UTF-8 (overlong forms such as %C0%AE read as "." by lenient decoders)';
    }
    if (CONTROL.test(decoded)) return 'must not hold an escaped control character';
    for (const form of [decoded, decoded.normalize('NFKC')]) {
      if (FOLDS_TO_DELIMITER.test(form)) return 'must not hold a character that reads as /, \\, ;, %, ? or # once decoded or folded';
      if (DOT_SEGMENT.test(form)) return 'must not hold a segment that reads as a dot segment (".", "..") once decoded or folded';
    }
  }
  return undefined;
}

/** The bytes a path segment stands for, escapes decoded (the URL parser has escaped everything beyond ASCII). */
function segmentBytes(segment: string): Buffer {
  return Buffer.from(segment.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
}

/**
 * The exact external request a caller asks for. The service and the gateway
 * both canonicalise it the same way (lower-case header names, URL equal to its
 * WHATWG serialisation, body hashed as decoded bytes).
 */
export const ExternalRequest = Type.Object(
  {
    method: Type.Union(HTTP_METHODS.map((m) => Type.Literal(m))),
    url: Type.String({ minLength: 1, maxLength: 8192 }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 8192 }))),
    body: Type.Optional(Type.String()),
    bodyEncoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')])),
  },
  { additionalProperties: false },
);
export type ExternalRequest = Static<typeof ExternalRequest>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/**
 * `POST {gateway}/v1/tickets`, sent by the service with the issuer key after its
 * own checks passed. Identity fields come from the service's authentication,
 * never from the caller's body. The gateway applies its destination policy,
 * records `issued` or `denied`, and keeps the bound request until use or expiry.
 */
export const TicketIssueRequest = Type.Object(
  {
    /** The service's request id, carried into the ledger for correlation. */
    request_id: Type.String({ maxLength: 128 }),
    space: Type.String(),
    connection_id: Type.String(),
    destination_id: Type.String(),
    /** The member's id as the API shows it. */
    member: Type.String(),
    member_type: Type.Union([Type.Literal('human'), Type.Literal('agent')]),
    /** The accountable principal: the operator of an agent, the human themself. */
    operator: Nullable(Type.String()),
    task_id: Nullable(Type.Integer()),
    run_id: Type.String({ minLength: 1, maxLength: 128 }),
    purpose: Type.String({ minLength: 1, maxLength: 200 }),
    approval_id: Nullable(Type.String()),
    /** Already capped by the service at the connection's maxTtlSeconds and 300. */
    ttl_seconds: Type.Integer({ minimum: 1, maximum: 300 }),
    request: Type.Object(
      {
        method: Type.Union(HTTP_METHODS.map((m) => Type.Literal(m))),
        url: Type.String(),
        /** Lower-case names, each once. */
        headers: Type.Record(Type.String(), Type.String()),
        /** The raw body bytes, base64; absent for no body. */
        body_base64: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type TicketIssueRequest = Static<typeof TicketIssueRequest>;

export const TicketIssued = Type.Object(
  {
    ticket: Type.String(),
    expires_ts: Type.String(),
    /**
     * The destination's `maxResponseBytes`: how long the ticket's answer may be,
     * so the service can bound what it will hold before it uses the ticket.
     * Absent from a gateway of an earlier release (then the ceiling applies).
     */
    max_response_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESPONSE_BYTES_CEILING })),
  },
  { additionalProperties: false },
);
export type TicketIssued = Static<typeof TicketIssued>;

/** `POST {gateway}/v1/call`: the ticket is the only credential. */
export const CallWithTicket = Type.Object({ ticket: Type.String({ minLength: 1, maxLength: 8192 }) }, { additionalProperties: false });
export type CallWithTicket = Static<typeof CallWithTicket>;

/** The upstream's answer, bounded and filtered by the destination's policy. */
export const CallResult = Type.Object(
  {
    status: Type.Integer(),
    headers: Type.Record(Type.String(), Type.String()),
    bodyBase64: Type.String(),
    provider_request_id: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type CallResult = Static<typeof CallResult>;

export const LEDGER_DECISIONS = ['issued', 'started', 'brokered', 'denied', 'error'] as const;
export type LedgerDecision = (typeof LEDGER_DECISIONS)[number];

/**
 * One audit record, every field always present (null when it does not apply).
 * It never holds the ticket, a provider credential, header values, query
 * values, bodies or member free text. `digest` is the hex SHA-256 of the RFC
 * 8785 canonical JSON of the record without `digest`; `prev_digest` chains it
 * to the record before (64 zeros for the first).
 */
export const LedgerRecord = Type.Object(
  {
    seq: Type.Integer({ minimum: 1 }),
    ts: Type.String(),
    decision: Type.Union(LEDGER_DECISIONS.map((d) => Type.Literal(d))),
    error_code: Nullable(Type.String()),
    request_id: Nullable(Type.String()),
    space: Nullable(Type.String()),
    connection_id: Nullable(Type.String()),
    member: Nullable(Type.String()),
    member_type: Nullable(Type.String()),
    operator: Nullable(Type.String()),
    task_id: Nullable(Type.Integer()),
    run_id: Nullable(Type.String()),
    purpose: Nullable(Type.String()),
    approval_id: Nullable(Type.String()),
    destination_id: Nullable(Type.String()),
    adapter_id: Nullable(Type.String()),
    method: Nullable(Type.String()),
    host: Nullable(Type.String()),
    path: Nullable(Type.String()),
    status: Nullable(Type.Integer()),
    latency_ms: Nullable(Type.Integer()),
    request_bytes: Nullable(Type.Integer()),
    response_bytes: Nullable(Type.Integer()),
    provider_request_id: Nullable(Type.String()),
    ticket_fingerprint: Nullable(Type.String()),
    prev_digest: Type.String(),
    digest: Type.String(),
  },
  { additionalProperties: false },
);
export type LedgerRecord = Static<typeof LedgerRecord>;

export const LedgerPage = Type.Object(
  { events: Type.Array(LedgerRecord), cursor: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);
export type LedgerPage = Static<typeof LedgerPage>;
