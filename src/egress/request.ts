import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
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

/** How long a kept connection may sit idle before it is closed (sooner when the upstream's `Keep-Alive: timeout` says so). */
const IDLE_CONNECTION_MS = 4000;

/**
 * Connections kept open between requests, for a sender that calls the same
 * origins again and again (the credential gateway). Each connection was made
 * to the address its own resolution checked (see sendEgress) and stays pinned
 * to it for its life; an idle one closes after a few seconds.
 */
export class EgressPool {
  readonly http = new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });
  readonly https = new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });

  /** Closes every kept connection. */
  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

/**
 * Sends one request under the address policy. Each new connection resolves
 * the host once and judges every address it got (target.ts), and is made to
 * that very address, so a name that resolves elsewhere a moment later (DNS
 * rebinding) cannot redirect it; TLS still verifies the certificate for the
 * host name. Without a pool, every request has a connection (and so a
 * resolution) of its own; with one, a request may reuse an idle connection
 * to the same origin, which is still pinned to the address checked when it
 * was made. Redirects are answers like any other, never followed; no cookies
 * are kept; the time and the response size are bounded.
 */
export async function sendEgress(
  req: EgressRequest,
  policy: AddressPolicy,
  limits: EgressLimits,
  resolver: Resolver = systemResolver,
  pool?: EgressPool,
): Promise<EgressResponse> {
  const url = parseTargetUrl(req.url);
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  // Node connects to an IP literal without a lookup, so it is judged here.
  if (isIP(hostname) !== 0) await resolveTarget(url, policy, resolver);
  // Called once per new connection, never for a kept one: its refusal (EgressRefused) fails the request before anything is sent.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    resolveTarget(url, policy, resolver).then(
      (target) => {
        if ((options as { all?: boolean }).all) callback(null, [{ address: target.address, family: target.family }]);
        else callback(null, target.address, target.family);
      },
      (err: Error) => callback(err, ''),
    );
  };
  const https = url.protocol === 'https:';
  const send = https ? httpsRequest : httpRequest;
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  return new Promise<EgressResponse>((resolve, reject) => {
    const outgoing = send(url, {
      method: req.method,
      headers: { ...req.headers, ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}) },
      lookup: pinned,
      servername: hostname,
      // Without a pool, one connection per request.
      agent: pool === undefined ? false : https ? pool.https : pool.http,
      signal: deadline,
    });
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof EgressRefused) return reject(err);
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
