import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy.js';
import { EgressRefused, parseTargetUrl, resolveTarget, systemResolver, type Resolver } from './target.js';

export interface EgressRequest {
  url: string;
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export interface EgressLimits {
  /** The whole exchange, connection to the last response byte. */
  timeoutMs: number;
  /** A longer response body fails the request. */
  maxResponseBytes: number;
}

export interface EgressResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The request was allowed and sent but did not complete: no answer, too slow, too large. */
export class EgressFailed extends Error {
  constructor(
    readonly reason: string,
    /** What went wrong, for callers that answer each differently (the gateway's codes). */
    readonly kind: 'timeout' | 'too_large' | 'network' = 'network',
  ) {
    super(reason);
    this.name = 'EgressFailed';
  }
}

/**
 * Sends one request under the address policy. The host is resolved and judged
 * once (target.ts) and the connection is made to that very address, so a name
 * that resolves elsewhere a moment later (DNS rebinding) cannot redirect it;
 * TLS still verifies the certificate for the host name. Redirects are answers
 * like any other, never followed; no cookies are kept; the time and the
 * response size are bounded.
 */
export async function sendEgress(
  req: EgressRequest,
  policy: AddressPolicy,
  limits: EgressLimits,
  resolver: Resolver = systemResolver,
): Promise<EgressResponse> {
  const target = await resolveTarget(parseTargetUrl(req.url), policy, resolver);
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  return new Promise<EgressResponse>((resolve, reject) => {
    const outgoing = send(target.url, {
      method: req.method,
      headers: { ...req.headers, ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}) },
      lookup: pinned,
      servername: target.hostname,
      // One connection per request: a pooled socket could outlive the check that allowed it.
      agent: false,
      signal: deadline,
    });
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      reject(deadline.aborted || err.name === 'AbortError' || err.code === 'ABORT_ERR' ? new EgressFailed(`no complete answer within ${limits.timeoutMs} ms`, 'timeout') : new EgressFailed(describeNetworkError(err)));
    });
    outgoing.on('response', (incoming) => {
      // An answer of declared length (most large ones) is copied once into a
      // buffer of that size as it arrives, rather than gathered and then
      // joined into a second whole copy. It is allocated at the first byte, so
      // a HEAD answer's length allocates nothing.
      const declared = declaredLength(incoming.headers, limits.maxResponseBytes);
      let whole: Buffer | undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxResponseBytes) {
          outgoing.destroy();
          reject(new EgressFailed(`the answer is longer than ${limits.maxResponseBytes} bytes`, 'too_large'));
          return;
        }
        if (declared === undefined) {
          chunks.push(chunk);
          return;
        }
        whole ??= Buffer.allocUnsafe(declared);
        if (size > declared) {
          outgoing.destroy();
          reject(new EgressFailed('the answer is longer than its Content-Length'));
          return;
        }
        chunk.copy(whole, size - chunk.length);
      });
      incoming.on('end', () => {
        const body = declared === undefined ? Buffer.concat(chunks, size) : (whole ?? Buffer.alloc(0)).subarray(0, size);
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body });
      });
      incoming.on('error', (err: NodeJS.ErrnoException) =>
        reject(deadline.aborted || err.name === 'AbortError' ? new EgressFailed(`no complete answer within ${limits.timeoutMs} ms`, 'timeout') : new EgressFailed(describeNetworkError(err))),
      );
    });
    outgoing.end(req.body);
  });
}

/** The answer's Content-Length when it is one number within the limit; otherwise the body is gathered as it comes. */
function declaredLength(headers: IncomingHttpHeaders, max: number): number | undefined {
  const text = headers['content-length'];
  if (text === undefined || headers['transfer-encoding'] !== undefined || !/^\d+$/.test(text)) return undefined;
  const length = Number(text);
  return length <= max ? length : undefined;
}

function describeNetworkError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    default:
      return err.code ? `the request failed (${err.code})` : 'the request failed';
  }
}

export { EgressRefused };
