import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient, { type Client } from 'openapi-fetch';
import pg from 'pg';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startSession } from '../../src/identity/sessions.js';
import { createLogger } from '../../src/logger.js';
import { createHuman } from '../../src/members/service.js';
import { assignRole } from '../../src/roles/service.js';
import type { Role } from '../../src/roles/tables.js';
import type { Clock } from '../../src/shared/clock.js';
import type { components, paths } from '../../src/client/openapi.js';
import { ContractChecker } from './contract.js';

export type Backend = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too whenever ATRIUM_TEST_DATABASE_URL is set (CI sets it). */
export function backends(): Backend[] {
  return process.env.ATRIUM_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

export const STEWARD_KEY = 'steward-test-key-0123456789abcdef';

export interface RequestOptions {
  /** Bearer token (member key, session token or steward key). */
  token?: string;
  body?: unknown;
  /** Raw body, sent as-is with content-type application/json (a Buffer for bytes that are not UTF-8). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Skip the contract check (for deliberately undocumented requests). */
  unchecked?: boolean;
}

// Test bodies are asserted field by field; the contract check already validated their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** The contract's schemas, by name: what a typed call's `data` is, for helpers that take one. */
export type Schemas = components['schemas'];

/** A human made by `server.human`: their handle and a session token. */
export type Person = { handle: string; session: string };

/**
 * The typed client generated from the contract (openapi-fetch over
 * src/client/openapi.ts): paths, parameters, bodies and answers are checked
 * by the compiler, and every answer still by the contract checker at run time.
 */
export type ApiClient = Client<paths>;

export interface TestServer {
  backend: Backend;
  url: string;
  app: App;
  /** Where the data lives: the SQLite URL, or the PostgreSQL schema's name. */
  database: { url: string; schema?: string };
  contract: ContractChecker;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  /** The typed client, calling without credentials. */
  api: ApiClient;
  /**
   * The typed client calling as `token` (member key, session token or steward key):
   * `const { data, response } = await server.as(token).GET('/v0/spaces/{slug}', { params: { path: { slug } } })`.
   */
  as(token: string, headers?: Record<string, string>): ApiClient;
  /** A human created directly in the database, with a session token; optionally Owner/Host. */
  human(handle: string, opts?: { role?: Role; space?: string }): Promise<Person>;
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /**
   * Start a second Atrium node on the first one's database (PostgreSQL: the
   * same schema), as a scale-out deployment runs several. The first server
   * owns the database and drops it when it stops.
   */
  shareWith?: TestServer;
  /** Where the guides at /docs/<name> come from (a fixture directory); docs/ otherwise. */
  docsDir?: string;
}

/**
 * Starts a real Atrium server on a loopback port over a real database: a fresh
 * SQLite file, or a fresh PostgreSQL schema that is dropped afterwards. Every
 * response a test receives is checked against the served OpenAPI contract.
 */
export async function startServer(backend: Backend, opts: StartOptions = {}): Promise<TestServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'atrium-test-'));
  let schema: string | undefined;
  let databaseUrl: string;
  let sealingKey: string | undefined;
  if (opts.shareWith) {
    // Several nodes is the PostgreSQL deployment; SQLite is one embedded node.
    if (backend !== 'postgres' || opts.shareWith.backend !== backend) throw new Error('only PostgreSQL is shared by several nodes');
    ({ url: databaseUrl, schema } = opts.shareWith.database);
    // Another node of the same database: it must seal webhook keys under the first node's key (docs/webhooks.md).
    sealingKey = opts.shareWith.app.ctx.config.webhookSealingKey ?? readFileSync(join(opts.shareWith.app.ctx.config.dataDir, 'webhook-sealing.key'), 'utf8').trim();
  } else if (backend === 'postgres') {
    databaseUrl = process.env.ATRIUM_TEST_DATABASE_URL!;
    schema = `atrium_test_${randomBytes(6).toString('hex')}`;
    await withPg(databaseUrl, (c) => c.query(`create schema ${schema}`));
  } else {
    databaseUrl = `sqlite:${join(dir, 'atrium.db')}`;
  }
  const config = loadConfig({
    ATRIUM_HOST: '127.0.0.1',
    ATRIUM_PORT: String(port),
    ATRIUM_BASE_URL: `http://127.0.0.1:${port}`,
    ATRIUM_DATABASE_URL: databaseUrl,
    ATRIUM_STEWARD_KEY: STEWARD_KEY,
    // Suites register many agents from one loopback address; the limit has its own test.
    ATRIUM_AGENT_REGISTRATION_RATE_LIMIT: '100000',
    // fetch keeps an idle connection a second less than the server's 5 s hint,
    // on a timer that ticks once a second, in the same event loop as the
    // server: on a loaded machine the server closed a connection just as a
    // test sent a POST on it (ECONNRESET). Test servers keep idle connections
    // far longer than any client here does.
    ATRIUM_KEEP_ALIVE_TIMEOUT_MS: '60000',
    ...(sealingKey ? { ATRIUM_WEBHOOK_SEALING_KEY: sealingKey } : {}),
    ...opts.env,
  });
  config.dataDir = dir;
  const app = await createApp(config, {
    log: createLogger(process.env.ATRIUM_TEST_LOG_LEVEL ?? 'silent'),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(schema ? { databaseSchema: schema } : {}),
    ...(opts.docsDir ? { docsDir: opts.docsDir } : {}),
  });
  await app.http.listen({ host: '127.0.0.1', port });
  const url = `http://127.0.0.1:${port}`;
  const contract = new ContractChecker((await (await fetch(`${url}/v0/openapi.json`)).json()) as ConstructorParameters<typeof ContractChecker>[0]);

  const request = async (method: string, path: string, ro: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...ro.headers };
    if (ro.token) headers.authorization = `Bearer ${ro.token}`;
    let body: string | Buffer | undefined;
    if (ro.rawBody !== undefined) body = ro.rawBody;
    else if (ro.body !== undefined) body = JSON.stringify(ro.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    const parsed = text === '' ? undefined : JSON.parse(text);
    if (!ro.unchecked) contract.check(method, path, res.status, parsed);
    return { status: res.status, body: parsed, headers: res.headers };
  };

  // Each typed answer is read once here, checked against the contract, and handed
  // back whole: openapi-fetch then parses the copy as it would the original.
  const checkedFetch = async (input: Request): Promise<Response> => {
    const res = await fetch(input);
    const text = await res.text();
    const target = new URL(input.url);
    contract.check(input.method, target.pathname + target.search, res.status, text === '' ? undefined : JSON.parse(text));
    // 101, 204, 205 and 304 answers may not carry a body, not even an empty one.
    return new Response(text === '' ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const api = createClient<paths>({ baseUrl: url, fetch: checkedFetch });
  const as = (token: string, headers: Record<string, string> = {}): ApiClient =>
    createClient<paths>({ baseUrl: url, fetch: checkedFetch, headers: { ...headers, authorization: `Bearer ${token}` } });

  return {
    backend,
    url,
    app,
    database: { url: databaseUrl, ...(schema ? { schema } : {}) },
    contract,
    request,
    api,
    as,
    async human(handle, o = {}) {
      return app.ctx.db.transaction(async (tx) => {
        // What `atrium admin create-owner` does: the admin CLI acts, not a member.
        const actor = { system: 'admin_cli' } as const;
        await createHuman(tx, actor, { handle, email: `${handle}@example.test` });
        await tx.db.updateTable('members').set({ email_verified: 1 }).where('handle', '=', handle).execute();
        if (o.role) await assignRole(tx, actor, { member: handle, role: o.role, space: o.space ?? null });
        const session = await startSession(tx, handle);
        return { handle, session: session.token };
      });
    },
    async stop() {
      await app.close();
      if (schema && !opts.shareWith) await withPg(databaseUrl, (c) => c.query(`drop schema ${schema} cascade`));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One PostgreSQL client for `fn`, closed after it. */
/** A PostgreSQL URL whose connections use `schema`, as a child process or another node is given a test's database. */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

export async function withPg<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A loopback port nothing listens on, for a process that binds it later (a
 * server child, a restart on the same address). Chosen below the kernel's
 * ephemeral range (32768–60999 by default): a port the OS hands out there is
 * also what it picks as the source port of outgoing connections, so under a
 * busy run one of those could take it between this check and the child's bind.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
