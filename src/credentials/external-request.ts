import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { pathRefusal, type ExternalRequest } from '../shared/gateway-wire.js';
import { refuse } from './refusal.js';

/**
 * The exact external request, checked and put in the one form that the
 * approval, the ticket and the gateway all compare: the URL as written (it
 * must already equal its WHATWG serialisation), lower-case header names each
 * once, and the body as the bytes it decodes to. The gateway repeats these
 * checks; the service makes them first so a malformed request never reaches it.
 */
export interface CanonicalRequest {
  method: ExternalRequest['method'];
  url: string;
  host: string;
  /** Lower-case names, in sorted order. */
  headers: Record<string, string>;
  headerNames: string[];
  headersSha256: string;
  /** Absent when the caller sent no body. */
  body: Buffer | undefined;
  bodySha256: string;
}

/**
 * Headers a caller may never set. Authorization and Cookie would let a caller
 * smuggle its own credentials past the gateway's; Host and Content-Length are
 * the gateway's to write from the URL and the body; hop-by-hop headers belong to
 * one connection, not to the request the ticket binds. `proxy-*` is checked by
 * prefix.
 */
const DENIED_HEADERS = new Set([
  'authorization',
  'cookie',
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** RFC 9110 token characters: what a field name may be made of. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value without CR, LF or NUL, which would end or split the header on the wire. */
const HEADER_VALUE = /^[^\r\n\0]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function canonicalRequest(request: ExternalRequest): CanonicalRequest {
  const url = checkUrl(request.url);
  const headers = checkHeaders(request.headers ?? {});
  const body = decodeBody(request);
  const headerNames = Object.keys(headers);
  return {
    method: request.method,
    url: request.url,
    host: url.host,
    headers,
    headerNames,
    headersSha256: sha256(canonicalize(headers) ?? '{}'),
    body,
    bodySha256: sha256(body ?? Buffer.alloc(0)),
  };
}

function checkUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('url_invalid', 'request.url must be an absolute http or https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('url_invalid', `request.url must use http or https, not ${url.protocol.slice(0, -1)}`);
  if (url.username !== '' || url.password !== '') throw refuse('url_invalid', 'request.url must not carry a user name or password');
  if (text.includes('#')) throw refuse('url_invalid', 'request.url must not have a fragment');
  // What is sent is exactly what was approved and bound: a URL a parser would
  // rewrite (case, dot segments, default port, escapes) could mean two things.
  if (url.href !== text) throw refuse('url_invalid', `request.url must be written as its normal form, ${JSON.stringify(url.href)}`);
  // Escapes, matrix parameters and folded characters mean different things to
  // different servers, so a path prefix the gateway allows could be escaped.
  const trick = pathRefusal(url.pathname);
  if (trick !== undefined) throw refuse('url_invalid', `request.url: its path ${trick}`);
  return url;
}

function checkHeaders(given: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) throw refuse('invalid_request', `request.headers: ${JSON.stringify(name)} is not a header name`);
    if (Object.hasOwn(out, lower)) throw refuse('invalid_request', `request.headers: ${lower} is given twice`);
    if (DENIED_HEADERS.has(lower) || lower.startsWith('proxy-')) throw refuse('header_denied', `request.headers: ${lower} may not be set by a caller`);
    if (!HEADER_VALUE.test(value)) throw refuse('invalid_request', `request.headers: the value of ${lower} holds a line break or NUL`);
    out[lower] = value;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function decodeBody(request: ExternalRequest): Buffer | undefined {
  if (request.body === undefined) {
    if (request.bodyEncoding !== undefined) throw refuse('invalid_request', 'request.bodyEncoding is given without a request.body');
    return undefined;
  }
  if (request.bodyEncoding === 'base64') {
    if (!BASE64.test(request.body)) throw refuse('invalid_request', 'request.body is not base64 (standard alphabet, padded)');
    return Buffer.from(request.body, 'base64');
  }
  return Buffer.from(request.body, 'utf8');
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
