import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from '../../client/openapi.js';
import { readCredentials, readSession, type StoredCredentials } from './credentials-file.js';
import { ApiError, ConnectionError, NotSignedInError, usageError } from './errors.js';
import { ROUTES, type Route } from './routes.js';

/** Where `atrium serve` listens by default (docs/configuration.md). */
export const DEFAULT_HOST = 'http://localhost:8080';
const REQUEST_TIMEOUT_MS = 60_000;

/** The typed client of the contract (src/client/openapi.ts): a changed field fails the CLI's typecheck, not its users. */
export type Api = Client<paths>;
export type Schemas = components['schemas'];
/** An operation's query parameters: options pass the user's text on, and the host judges it. */
export type Query<Name extends keyof operations> = NonNullable<operations[Name]['parameters']['query']>;
/** An operation's JSON request body. */
export type Body<Name extends keyof operations> = operations[Name] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** An operation's JSON answer when it succeeds with 200. */
export type Answer<Name extends keyof operations> = operations[Name] extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

export interface Target {
  host: string;
  token: string | undefined;
  /** Where the token came from, for `whoami` and error hints. */
  tokenSource: 'ATRIUM_TOKEN' | 'stored' | 'none';
  /** The session stored by `atrium sign-in` for this host, used only where an API key is refused. */
  session?: string;
}

/**
 * The host every command talks to, `login` and `sign-in` included: `--host`,
 * else ATRIUM_URL, else the host of the stored login, else the local default.
 * `stored` is asked only when nothing explicit names a host.
 */
export function resolveHost(
  hostOption: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  stored: () => Pick<StoredCredentials, 'host'> | undefined = () => readCredentials(env),
): string {
  const explicit = hostOption || env.ATRIUM_URL || undefined;
  const host = normaliseHost(explicit ?? stored()?.host ?? DEFAULT_HOST);
  if (explicit === undefined && env.ATRIUM_HOST) sayOnce(`ATRIUM_HOST is the server's listen address and chooses nothing here; the CLI reads ATRIUM_URL or --host, and talks to ${host}`);
  return host;
}

const said = new Set<string>();

/**
 * A note on stderr, at most once per command: someone who set ATRIUM_HOST to
 * reach a server was sent to localhost:8080 without a word.
 */
function sayOnce(note: string): void {
  if (said.has(note)) return;
  said.add(note);
  process.stderr.write(`atrium: ${note}\n`);
}

/**
 * The host (resolveHost) and the token: ATRIUM_TOKEN, else the stored key,
 * but the stored key only for the host it was minted on, so pointing the CLI
 * elsewhere never hands that key to another server.
 */
export function resolveTarget(hostOption: string | undefined, env: NodeJS.ProcessEnv = process.env): Target {
  const envToken = tokenFromEnvironment(env);
  const explicit = hostOption || env.ATRIUM_URL || undefined;
  // Nothing from the file is needed in this case; a broken file must not get in the way.
  const stored = explicit && envToken ? undefined : readCredentials(env);
  const host = resolveHost(hostOption, env, () => stored);
  if (envToken) return { host, token: envToken, tokenSource: 'ATRIUM_TOKEN' };
  const signedIn = readSession(env);
  const session = signedIn && normaliseHost(signedIn.host) === host ? { session: signedIn.token } : {};
  if (stored && normaliseHost(stored.host) === host) return { host, token: stored.key, tokenSource: 'stored', ...session };
  return { host, token: undefined, tokenSource: 'none', ...session };
}

/**
 * ATRIUM_TOKEN when it is set. Set but empty is refused rather than read as
 * unset: `ATRIUM_TOKEN=$AGENT_KEY` with the variable missing would otherwise
 * act with the stored key, as someone else than the one meant.
 */
function tokenFromEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.ATRIUM_TOKEN;
  if (value === undefined) return undefined;
  if (value.trim() === '') {
    throw usageError('ATRIUM_TOKEN is set but empty (a variable that expanded to nothing?): set it to a key or token, or unset it to act with the key stored by "atrium login"');
  }
  return value;
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

/** Every API operation by name, for `atrium api`. */
export function routesByName(): Map<string, Route> {
  return new Map(ROUTES.map((r) => [r.name, r]));
}

let routes: Map<string, Route> | undefined;

/** The operation a typed call makes, by method and the contract's path: its credentials and idempotency key. */
function routeFor(method: string, path: string): Route {
  routes ??= new Map(ROUTES.map((r) => [`${r.method} ${r.path}`, r]));
  const route = routes.get(`${method} ${path}`);
  if (!route) throw new Error(`no API operation ${method} ${path}`);
  return route;
}

/** A typed call's outcome as openapi-fetch answers it. */
export interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export interface Reply<T> {
  status: number;
  body: T;
  /** The answer's `Retry-After` in seconds, when it has one (a long poll the host did not hold). */
  retryAfter?: number;
}

/** What one call sent, to explain its refusal. */
interface Sent {
  route?: Route;
  credential?: 'token' | 'session';
}

/**
 * Makes one typed call to the host and answers its status and body; a refusal
 * becomes an ApiError carrying the host's status, `detail` and error code.
 *
 *     const { body } = await send(target, (api) => api.GET('/v0/spaces/{slug}', { params: { path: { slug } } }));
 */
export async function send<T>(target: Target, call: (api: Api) => Promise<Outcome<T>>): Promise<Reply<T>> {
  const sent: Sent = {};
  let outcome: Outcome<T>;
  try {
    outcome = await call(apiFor(target, sent));
  } catch (err) {
    // "Not logged in" is only true where an Atrium host answers: a wrong port or scheme says so instead.
    if (err instanceof NotSignedInError) await ensureAtrium(target.host);
    if (err instanceof SyntaxError) throw notAtrium(target.host, sent, 'with something that is not JSON');
    throw err;
  }
  const { response } = outcome;
  if (!response.ok) throw refusal(target, response, outcome.error, sent);
  const retryAfter = /^\d+$/.test(response.headers.get('retry-after') ?? '') ? Number(response.headers.get('retry-after')) : undefined;
  return { status: response.status, body: outcome.data as T, ...(retryAfter !== undefined ? { retryAfter } : {}) };
}

/** Refuses a command that needs a credential when there is none, once an Atrium host is known to answer. */
export async function notSignedIn(target: Target): Promise<never> {
  await ensureAtrium(target.host);
  throw new NotSignedInError(notSignedInText(target.host));
}

function notSignedInText(host: string): string {
  return `not logged in to ${host}: run "atrium login" or set ATRIUM_TOKEN`;
}

/** Untyped inputs for `atrium api`, which calls any operation by name. */
export interface RouteInput {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/** Calls an operation chosen at run time (`atrium api`): the one place the CLI does not know the types. */
export function sendRoute(target: Target, route: Route, input: RouteInput): Promise<Reply<unknown>> {
  type Untyped = (method: string, path: string, init: object) => Promise<Outcome<unknown>>;
  return send(target, (api) =>
    (api.request as unknown as Untyped)(route.method, route.path, {
      params: { path: input.params ?? {}, query: input.query ?? {} },
      ...(input.body !== undefined ? { body: input.body } : {}),
    }),
  );
}

function apiFor(target: Target, sent: Sent): Api {
  const api = createClient<paths>({
    baseUrl: target.host,
    headers: { accept: 'application/json', 'user-agent': 'atrium-cli' },
    fetch: (request) => fetchOnce(target.host, request),
  });
  api.use({
    onRequest({ request, schemaPath }) {
      const route = routeFor(request.method, schemaPath);
      sent.route = route;
      const credential = credentialFor(route, target);
      if (!route.auth.anonymous && !credential) {
        throw new NotSignedInError(notSignedInText(target.host));
      }
      if (credential) {
        sent.credential = credential.kind;
        request.headers.set('authorization', `Bearer ${credential.token}`);
      }
      // A write that takes a key is sent with one, and sent once more with the same key if the
      // connection failed: if the first request did arrive, the host answers with its result
      // instead of creating a second record (docs/idempotency.md).
      if (route.idempotencyKey) request.headers.set('idempotency-key', `atrium-cli-${randomUUID()}`);
      return request;
    },
  });
  return api;
}

/**
 * The stored API key, except where the operation refuses keys and a session
 * from `atrium sign-in` is at hand: review policy, role assignments and
 * credential management take a sign-in, everything else the everyday key.
 */
function credentialFor(route: Route, target: Target): { kind: 'token' | 'session'; token: string } | undefined {
  if (target.session && (keysRefused(route) || !target.token)) return { kind: 'session', token: target.session };
  return target.token ? { kind: 'token', token: target.token } : undefined;
}

function keysRefused(route: Route): boolean {
  return !route.auth.schemes.includes('member_key') && route.auth.schemes.includes('session');
}

/** One request, with a timeout; a write with an idempotency key is sent once more if the connection failed. */
async function fetchOnce(host: string, request: Request): Promise<Response> {
  const spare = request.headers.has('idempotency-key') ? request.clone() : undefined;
  for (const attempt of spare ? [request, spare] : [request]) {
    try {
      return await fetch(attempt, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]) });
    } catch (err) {
      if (request.signal.aborted) throw err;
      if (attempt !== spare && spare) continue;
      throw connectionError(host, err);
    }
  }
  throw new Error('unreachable');
}

function refusal(target: Target, response: Response, body: unknown, sent: Sent): Error {
  const code = response.headers.get('atrium-error') ?? undefined;
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail !== 'string' && code === undefined) return notAtrium(target.host, sent, `HTTP ${response.status} and no Atrium error`);
  const text = typeof detail === 'string' ? detail : response.statusText || 'request failed';
  // The host cannot know which command gets a session; the CLI can.
  const hint =
    response.status === 403 && sent.route && keysRefused(sent.route) && sent.credential !== 'session' && !text.includes('atrium sign-in')
      ? '; run "atrium sign-in" first'
      : '';
  return new ApiError(response.status, text, code, hint);
}

function notAtrium(host: string, sent: Sent, answer: string): ConnectionError {
  const what = sent.route ? `${sent.route.method} ${sent.route.path}` : 'the request';
  return new ConnectionError(`nothing Atrium answers at ${host}: it answered ${what} ${answer}. Check the URL (use --host or ATRIUM_URL to choose another)`);
}

/** Resolves if an Atrium host answers its discovery document at `host`; otherwise says what does (or that nothing does). */
async function ensureAtrium(host: string): Promise<void> {
  let response: Response;
  let body: unknown;
  try {
    response = await fetch(`${host}/v0`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    body = await response.json();
  } catch (err) {
    if (err instanceof SyntaxError) throw notAtrium(host, { route: routeFor('GET', '/v0') }, 'with something that is not JSON');
    throw connectionError(host, err);
  }
  const discovery = body as { protocol?: unknown; endpoints?: unknown } | null;
  if (!response.ok || typeof discovery?.protocol !== 'string' || !Array.isArray(discovery.endpoints)) {
    throw notAtrium(host, { route: routeFor('GET', '/v0') }, `with HTTP ${response.status} but no Atrium discovery document`);
  }
}

function connectionError(host: string, err: unknown): ConnectionError {
  const choose = '(use --host or ATRIUM_URL to choose another host)';
  if (err instanceof Error && err.name === 'TimeoutError') {
    return new ConnectionError(`${host} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s ${choose}`);
  }
  if (err instanceof ConnectionError) return err;
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  const message = cause?.message ?? (err instanceof Error ? err.message : String(err));
  let why: string;
  if (code === 'ECONNREFUSED') why = 'connection refused; is the server running, and on this port?';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') why = 'the host name does not resolve';
  else if (code.startsWith('ERR_SSL') || code === 'EPROTO' || /\bSSL\b|TLS/i.test(message)) why = `no TLS there (${message}); is it an http:// URL?`;
  else why = message;
  return new ConnectionError(`nothing answers at ${host}: ${why} ${choose}`);
}
