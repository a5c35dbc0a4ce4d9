import { pathRefusal } from '../shared/gateway-wire.js';
import { GatewayError } from './errors.js';

/**
 * The shape checks the service already made, repeated here: the gateway trusts
 * no one's word about the request it is about to send with a secret attached.
 */

/** Parses the exact URL a ticket will bind, or refuses it with `url_invalid`. */
export function checkUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new GatewayError('url_invalid', 'the URL is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new GatewayError('url_invalid', 'the URL must use http or https');
  if (url.username !== '' || url.password !== '') throw new GatewayError('url_invalid', 'the URL must not carry a user name or password');
  if (url.href.includes('#')) throw new GatewayError('url_invalid', 'the URL must not carry a fragment');
  // What is bound and sent is exactly what was asked for: a URL a parser would
  // rewrite (case, dot segments, default port, escapes) could pass the policy in
  // one form and reach the upstream in another.
  if (url.href !== text) throw new GatewayError('url_invalid', `the URL must be written as it is normalised: ${url.href}`);
  // Servers and proxies read a path differently, so a path prefix check on one
  // reading could be escaped on another: only paths every reading agrees on pass.
  const trick = pathRefusal(url.pathname);
  if (trick !== undefined) throw new GatewayError('url_invalid', `the URL path ${trick}`);
  return url;
}

/** RFC 9110 token characters, lower case only: the service sends names lower-cased. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
// Visible ASCII, space and tab, and obs-text; never CR, LF or NUL, which would split the request.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * Headers no caller may set: their own credentials (Authorization, Cookie,
 * proxy authentication), and those that steer the connection itself (Host,
 * Content-Length, hop-by-hop) rather than describe the request.
 */
export function isForbiddenHeader(name: string): boolean {
  return name === 'authorization' || name === 'cookie' || name.startsWith('proxy-') || name === 'host' || name === 'content-length' || HOP_BY_HOP.has(name);
}

/** Checks each header's spelling (422 `invalid_request`) and that the destination lets callers send it (403 `header_denied`). */
export function checkHeaders(headers: Record<string, string>, allowed: ReadonlySet<string>, credentialHeader: string): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new GatewayError('invalid_request', `header name ${JSON.stringify(name)} must be a lower-case HTTP token`);
    if (!HEADER_VALUE.test(value)) throw new GatewayError('invalid_request', `header ${name} has a character a header value cannot hold`);
    if (isForbiddenHeader(name)) throw new GatewayError('header_denied', `header ${name} may not be sent by a caller`);
    if (name === credentialHeader) throw new GatewayError('header_denied', `header ${name} carries the destination's credential`);
    if (!allowed.has(name)) throw new GatewayError('header_denied', `header ${name} is not allowed for this destination`);
  }
}

/** Decodes the body bytes; base64 that does not decode to exactly itself is refused. */
export function decodeBody(base64: string | undefined): Buffer | undefined {
  if (base64 === undefined) return undefined;
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.toString('base64') !== base64) throw new GatewayError('invalid_request', 'request.body_base64 is not canonical base64');
  return bytes;
}
