import { randomUUID } from 'node:crypto';
import { readCredentials, readSession } from './credentials-file.js';
import { ApiError, ClientError, ConnectionError, usageError } from './errors.js';
import { ROUTES, type Route } from './routes.js';

/** Where `atrium serve` listens by default (docs/configuration.md). */
export const DEFAULT_HOST = 'http://localhost:8080';
const REQUEST_TIMEOUT_MS = 60_000;

export interface Target {
  host: string;
  token: string | undefined;
  /** Where the token came from, for `whoami` and error hints. */
  tokenSource: 'ATRIUM_TOKEN' | 'stored' | 'none';
  /** The session stored by `atrium sign-in` for this host, used only where an API key is refused. */
  session?: string;
}

/**
 * The host: `--host`, else ATRIUM_URL, else the stored login, else the local
 * default. The token: ATRIUM_TOKEN, else the stored key, but the stored key
 * only for the host it was minted on, so pointing the CLI elsewhere never
 * hands that key to another server.
 */
export function resolveTarget(hostOption: string | undefined, env: NodeJS.ProcessEnv = process.env): Target {
  const explicit = hostOption || env.ATRIUM_URL || undefined;
  const envToken = env.ATRIUM_TOKEN || undefined;
  // Nothing from the file is needed in this case; a broken file must not get in the way.
  const stored = explicit && envToken ? undefined : readCredentials(env);
  const host = normaliseHost(explicit ?? stored?.host ?? DEFAULT_HOST);
  if (envToken) return { host, token: envToken, tokenSource: 'ATRIUM_TOKEN' };
  const signedIn = readSession(env);
  const session = signedIn && normaliseHost(signedIn.host) === host ? { session: signedIn.token } : {};
  if (stored && normaliseHost(stored.host) === host) return { host, token: stored.key, tokenSource: 'stored', ...session };
  return { host, token: undefined, tokenSource: 'none', ...session };
}

/**
 * `localhost:8080` is accepted for `http://localhost:8080`; a bare remote name
 * gets https. The result has no trailing slash, so paths append cleanly.
 */
export function normaliseHost(raw: string): string {
  let text = raw.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const local = /^(localhost|127\.|\[::1\])/i.test(text);
    text = `${local ? 'http' : 'https'}://${text}`;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`not a host URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`the host must be an http or https URL: ${raw}`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

let operations: Map<string, Route> | undefined;

/**
 * Every API operation by name, as the CLI calls it: the CLI never writes a
 * path twice. The table is generated from the operation declarations
 * (`npm run generate:client`); the declarations themselves bring every schema
 * and service with them, which no command needs to make a request.
 */
export function operationsByName(): Map<string, Route> {
  operations ??= new Map(ROUTES.map((op) => [op.name, op]));
  return operations;
}

export function findOperation(name: string): Route {
  const op = operationsByName().get(name);
  if (!op) throw new Error(`no API operation named ${name}`);
  return op;
}

export interface CallInput {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  signal?: AbortSignal;
}

export interface CallResult<T> {
  status: number;
  body: T;
  /** The answer's `Retry-After` in seconds, when it has one (a long poll the host did not hold). */
  retryAfter?: number;
}

/** The names of an operation's path parameters, in order. */
export function pathParameters(op: Route): string[] {
  return [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

export function buildUrl(host: string, op: Route, input: CallInput): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = input.params?.[name];
    if (value === undefined) throw usageError(`${op.name} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) query.append(k, String(v));
  const qs = query.toString();
  return `${host}${path}${qs ? `?${qs}` : ''}`;
}

/**
 * Calls one declared operation over the public HTTP API. Non-2xx answers
 * become an ApiError carrying the server's `detail`.
 */
// Response bodies are printed or picked apart by the commands that know the operation.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function callOperation<T = any>(target: Target, name: string, input: CallInput = {}): Promise<CallResult<T>> {
  const op = findOperation(name);
  const token = credentialFor(op, target);
  if (!op.auth.anonymous && !token) {
    throw new ClientError(`not logged in to ${target.host}: run "atrium login" or set ATRIUM_TOKEN`);
  }
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'atrium-cli' };
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (input.body !== undefined) {
    body = JSON.stringify(input.body);
    headers['content-type'] = 'application/json';
  }
  const url = buildUrl(target.host, op, input);
  // A write that takes a key is sent with one, and sent once more with the same key if the
  // connection failed: if the first request did arrive, the host answers with its result
  // instead of creating a second record (docs/idempotency.md).
  if (op.idempotencyKey) headers['idempotency-key'] = `atrium-cli-${randomUUID()}`;
  const tries = op.idempotencyKey ? 2 : 1;
  let res: Response | undefined;
  let text = '';
  for (let attempt = 1; res === undefined; attempt += 1) {
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
    try {
      res = await fetch(url, { method: op.method, headers, signal, ...(body !== undefined ? { body } : {}) });
      text = await res.text();
    } catch (err) {
      res = undefined;
      if (input.signal?.aborted) throw err;
      if (attempt >= tries) throw connectionError(target.host, err);
    }
  }
  let parsed: unknown = undefined;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      if (!res.ok) throw new ApiError(res.status, res.statusText || 'request failed');
      throw new ClientError(`${target.host} answered ${op.method} ${op.path} with something that is not JSON; is it an Atrium host?`);
    }
  }
  if (!res.ok) {
    const detail = (parsed as { detail?: unknown } | undefined)?.detail;
    const text = typeof detail === 'string' ? detail : res.statusText || 'request failed';
    // The server cannot know which command gets a session; the CLI can.
    const hint = res.status === 403 && /signed-in session/.test(text) && !/atrium sign-in/.test(text) ? '; run "atrium sign-in" first' : '';
    throw new ApiError(res.status, text + hint);
  }
  const retryAfter = /^\d+$/.test(res.headers.get('retry-after') ?? '') ? Number(res.headers.get('retry-after')) : undefined;
  return { status: res.status, body: parsed as T, ...(retryAfter !== undefined ? { retryAfter } : {}) };
}

/**
 * The stored API key, except where the operation refuses keys and a session
 * from `atrium sign-in` is at hand: review policy, role assignments and
 * credential management take a sign-in, everything else the everyday key.
 */
function credentialFor(op: Route, target: Target): string | undefined {
  const keysRefused = !op.auth.schemes.includes('member_key') && op.auth.schemes.includes('session');
  if (target.session && (keysRefused || !target.token)) return target.session;
  return target.token;
}

function connectionError(host: string, err: unknown): ConnectionError {
  if (err instanceof Error && err.name === 'TimeoutError') {
    return new ConnectionError(`${host} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
  }
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return new ConnectionError(`cannot connect to ${host}: connection refused. Is the server running? (use --host or ATRIUM_URL to choose another host)`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConnectionError(`cannot connect to ${host}: the host name does not resolve (use --host or ATRIUM_URL to choose another host)`);
    default:
      return new ConnectionError(`cannot connect to ${host}: ${cause?.message ?? (err instanceof Error ? err.message : String(err))}`);
  }
}
