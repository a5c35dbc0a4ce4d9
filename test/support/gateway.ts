import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadGatewayConfig } from '../../src/gateway/config.js';
import { createGateway, createGatewayLogger, type Gateway } from '../../src/gateway/gateway.js';
import type { CallResult, LedgerPage, LedgerRecord, TicketIssued, TicketIssueRequest } from '../../src/shared/gateway-wire.js';
import { CliProcess, isCliBuildSetting } from './cli.js';

/**
 * Test helpers for the credential gateway: a real upstream on loopback that
 * records what reaches it, and the real gateway (by default the `atrium
 * gateway` command in a child process) over a fresh SQLite file or a fresh
 * PostgreSQL schema.
 */

export type GatewayBackend = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too whenever ATRIUM_TEST_DATABASE_URL is set. */
export function gatewayBackends(): GatewayBackend[] {
  return process.env.ATRIUM_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

// ---------------------------------------------------------------- upstream

/** One request as the upstream received it. */
export interface UpstreamRequest {
  method: string;
  /** Path and query, exactly as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The raw header lines as sent, name and value alternating (names in their original case). */
  rawHeaders: string[];
  body: Buffer;
}

/** How the upstream answers one request. */
export type UpstreamAnswer = (req: UpstreamRequest, res: ServerResponse) => void;

/** Ready-made answers. */
export const answers = {
  /** 200 (or `status`) with a JSON body and extra headers. */
  json(body: unknown, status = 200, headers: Record<string, string | string[]> = {}): UpstreamAnswer {
    return (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
  },
  /** A redirect the gateway must hand back, not follow. */
  redirect(location: string, status = 302): UpstreamAnswer {
    return (_req, res) => {
      res.writeHead(status, { location }).end();
    };
  },
  /** A body of `bytes` bytes ('x' repeated). */
  large(bytes: number): UpstreamAnswer {
    return (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(bytes, 'x'));
    };
  },
  /** Headers, then never the rest: the request stays open until the upstream stops. */
  hang(): UpstreamAnswer {
    return () => {};
  },
};

export interface Upstream {
  /** `http://127.0.0.1:<port>`, the origin a destination names. */
  origin: string;
  url(path: string): string;
  received: UpstreamRequest[];
  /** How many TCP connections it has accepted. */
  connections(): number;
  /** The answer for requests whose path (without query) is `path`; `answers.json({ok: true})` otherwise. */
  answer(path: string, how: UpstreamAnswer): void;
  /** Resolves once `count` requests have arrived (a test's timeout bounds the wait). */
  waitFor(count: number): Promise<UpstreamRequest[]>;
  stop(): Promise<void>;
}

/** A real HTTP server on loopback standing in for a provider's API. */
export async function startUpstream(): Promise<Upstream> {
  const received: UpstreamRequest[] = [];
  const byPath = new Map<string, UpstreamAnswer>();
  const waiting: Array<{ count: number; resolve: (r: UpstreamRequest[]) => void }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: UpstreamRequest = { method: req.method ?? '', url: req.url ?? '/', headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
      received.push(got);
      (byPath.get(got.url.split('?')[0]!) ?? answers.json({ ok: true }))(got, res);
      for (const w of [...waiting]) {
        if (received.length >= w.count) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(received);
        }
      }
    });
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => origin + path,
    received,
    connections: () => connections,
    answer: (path, how) => void byPath.set(path, how),
    waitFor: (count) => (received.length >= count ? Promise.resolve(received) : new Promise((resolve) => waiting.push({ count, resolve }))),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------- gateway

/** A destination entry as the destinations file holds it. */
export interface DestinationEntry {
  id: string;
  origins: string[];
  pathPrefixes: string[];
  methods: string[];
  requestHeaders: string[];
  responseHeaders: string[];
  timeoutMs: number;
  maxResponseBytes: number;
  credential: { header: string; env: string; prefix?: string };
  providerRequestIdHeader?: string;
}

/** A destination for `upstream` under `/v1`, its secret in `env` (default PROVIDER_KEY), overridable field by field. */
export function destinationFor(upstream: Upstream, overrides: Partial<DestinationEntry> = {}): DestinationEntry {
  return {
    id: 'provider',
    origins: [upstream.origin],
    pathPrefixes: ['/v1'],
    methods: ['GET', 'POST'],
    requestHeaders: ['content-type', 'x-trace'],
    responseHeaders: ['content-type', 'x-request-id', 'location'],
    timeoutMs: 5000,
    maxResponseBytes: 65536,
    credential: { header: 'authorization', env: 'PROVIDER_KEY', prefix: 'Bearer ' },
    providerRequestIdHeader: 'x-request-id',
    ...overrides,
  };
}

export interface GatewayOptions {
  destinations: DestinationEntry[];
  /** More gateway environment: the destinations' secrets, ATRIUM_EGRESS_ALLOW_CIDRS (default 127.0.0.0/8), …. */
  env?: Record<string, string>;
  backend?: GatewayBackend;
  /** Use this store instead of a fresh one (the caller owns it). */
  databaseUrl?: string;
  /** Run the gateway inside the test process (createGateway) instead of as `atrium gateway`; needed for `now`. */
  inProcess?: boolean;
  /** In-process only: the gateway's clock. */
  now?: () => Date;
  /** Leave ATRIUM_GATEWAY_AUDIT_KEY unset. */
  noAuditKey?: boolean;
}

export interface TestGateway {
  url: string;
  issuerKey: string;
  auditKey: string;
  backend: GatewayBackend;
  /** The gateway's store: a `sqlite:` URL, or a `postgres://` URL whose search_path is the test's own schema. */
  databaseUrl: string;
  /** PostgreSQL: the schema; SQLite: undefined. */
  schema: string | undefined;
  /** The child process (undefined in-process). */
  process: CliProcess | undefined;
  /** In-process only: the running gateway. */
  gateway: Gateway | undefined;
  /** `POST /v1/tickets` with the issuer key. */
  issue(body: TicketIssueRequest, key?: string): Promise<{ status: number; body: TicketIssued & { code?: string; detail?: string } }>;
  /** `POST /v1/call`. */
  call(ticket: string): Promise<{ status: number; body: CallResult & { code?: string; detail?: string } }>;
  /** `GET /v1/events` with the audit key and these query parameters. */
  events(query?: Record<string, string>, key?: string): Promise<{ status: number; body: LedgerPage & { code?: string; detail?: string } }>;
  /** The whole ledger, read page by page through `/v1/events`. */
  ledger(): Promise<LedgerRecord[]>;
  stop(): Promise<void>;
}

const GATEWAY_LOG_LEVEL = process.env.ATRIUM_TEST_LOG_LEVEL ?? 'silent';

/** Starts the real gateway over a fresh store and waits until it listens. */
export async function startGateway(opts: GatewayOptions): Promise<TestGateway> {
  const backend = opts.backend ?? 'sqlite';
  const dir = mkdtempSync(join(tmpdir(), 'atrium-gateway-'));
  const destinationsPath = join(dir, 'destinations.json');
  writeFileSync(destinationsPath, JSON.stringify({ destinations: opts.destinations }));
  const store = opts.databaseUrl ? { url: opts.databaseUrl, schema: undefined } : await freshStore(backend, dir);
  const issuerKey = randomBytes(32).toString('base64url');
  const auditKey = randomBytes(32).toString('base64url');
  const env: Record<string, string> = {
    ATRIUM_GATEWAY_HOST: '127.0.0.1',
    ATRIUM_GATEWAY_PORT: '0',
    ATRIUM_GATEWAY_ISSUER_KEY: issuerKey,
    ...(opts.noAuditKey ? {} : { ATRIUM_GATEWAY_AUDIT_KEY: auditKey }),
    ATRIUM_GATEWAY_DATABASE_URL: store.url,
    ATRIUM_GATEWAY_DESTINATIONS: destinationsPath,
    ATRIUM_DATA_DIR: dir,
    ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
    ATRIUM_LOG_LEVEL: GATEWAY_LOG_LEVEL,
    ...opts.env,
  };

  let url: string;
  let child: CliProcess | undefined;
  let inProcess: Gateway | undefined;
  if (opts.inProcess) {
    inProcess = await createGateway(loadGatewayConfig(env), {
      log: createGatewayLogger(GATEWAY_LOG_LEVEL),
      ...(opts.now ? { now: opts.now } : {}),
    });
    url = await inProcess.listen();
  } else {
    child = new CliProcess(['gateway'], childEnv(env), dir);
    url = (await child.waitForStdout(/Atrium gateway is listening on (\S+)/))[1]!;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each caller names the body it expects
  const send = async (method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> => {
    const res = await fetch(url + path, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: await res.json() };
  };

  const gateway: TestGateway = {
    url,
    issuerKey,
    auditKey,
    backend,
    databaseUrl: store.url,
    schema: store.schema,
    process: child,
    gateway: inProcess,
    issue: (body, key = issuerKey) => send('POST', '/v1/tickets', body, key),
    call: (ticket) => send('POST', '/v1/call', { ticket }),
    events: (query = {}, key = auditKey) => send('GET', `/v1/events?${new URLSearchParams(query)}`, undefined, key),
    async ledger() {
      const all: LedgerRecord[] = [];
      for (;;) {
        const page = await gateway.events({ since: String(all.at(-1)?.seq ?? 0), limit: '500' });
        if (page.status !== 200) throw new Error(`ledger read failed: ${page.status} ${JSON.stringify(page.body)}`);
        all.push(...page.body.events);
        if (page.body.events.length < 500) return all;
      }
    },
    async stop() {
      if (child) {
        if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGTERM');
        await child.exited;
      }
      await inProcess?.close();
      if (store.schema) await withPg((c) => c.query(`drop schema if exists ${store.schema} cascade`));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return gateway;
}

/** The environment of a child `atrium`: the test's own ATRIUM_* settings stay out, the sources under test run. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if ((!k.startsWith('ATRIUM_') || isCliBuildSetting(k)) && k !== 'CI') env[k] = v;
  }
  return { ...env, ...extra };
}

/** A fresh gateway store: a SQLite file in `dir`, or a new PostgreSQL schema named in the URL's search_path. */
export async function freshStore(backend: GatewayBackend, dir: string): Promise<{ url: string; schema: string | undefined }> {
  if (backend === 'sqlite') return { url: `sqlite:${join(dir, 'gateway.db')}`, schema: undefined };
  const schema = `atrium_gateway_test_${randomBytes(6).toString('hex')}`;
  await withPg((c) => c.query(`create schema ${schema}`));
  return { url: pgUrlWithSchema(schema), schema };
}

export function pgUrlWithSchema(schema: string): string {
  const url = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
}

/** One statement batch on the test PostgreSQL server. */
export async function withPg<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.ATRIUM_TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A well-formed issuance request for `url`, as the service would send it; override any field. */
export function ticketRequest(
  url: string,
  overrides: Partial<Omit<TicketIssueRequest, 'request'>> & { request?: Partial<TicketIssueRequest['request']> } = {},
): TicketIssueRequest {
  const { request, ...rest } = overrides;
  return {
    request_id: `req-${randomBytes(4).toString('hex')}`,
    space: 'garden',
    connection_id: 'weather',
    destination_id: 'provider',
    member: 'scout',
    member_type: 'agent',
    operator: 'ada',
    task_id: null,
    run_id: `run-${randomBytes(4).toString('hex')}`,
    purpose: 'Check the forecast',
    approval_id: null,
    ttl_seconds: 30,
    ...rest,
    request: { method: 'GET', url, headers: {}, ...request },
  };
}

/** Purposes that carry a control or format character (Unicode Cc, Cf), or a line or paragraph separator. */
export const PURPOSES_REFUSED: Array<[string, string]> = [
  ['NEL (C1 next line)', 'first\u0085second'],
  ['a C1 control sequence introducer', 'red \u009b31m text'],
  ['an ANSI escape sequence', 'the \u001b[2J\u001b[H screen cleared'],
  ['BEL', 'ring\u0007'],
  ['NUL', 'cut\u0000here'],
  ['DEL', 'gone\u007f'],
  ['a tab', 'two\tcolumns'],
  ['a line feed', 'one\ntwo'],
  ['a carriage return', 'one\rtwo'],
  ['a line separator', 'one\u2028two'],
  ['a paragraph separator', 'one\u2029two'],
  ['a right-to-left override', 'invoice \u202egpj.exe'],
  ['a right-to-left isolate', 'pay \u2067100\u2069'],
  ['a zero-width space', 'pay\u200bment'],
  ['a byte-order mark', '\ufeffhidden'],
  ['a soft hyphen', 'in\u00advisible'],
  ['a tag character', 'tag\u{e0041}'],
  ['a lone surrogate', 'half\ud800'],
];

/**
 * Paths under `/v1` (written as their WHATWG serialisation, so only the path
 * rule can refuse them) that some server or proxy would read as a dot segment,
 * another separator or a parameter, and so as a path outside `/v1`.
 */
export const PATH_TRICKS: Array<[string, string]> = [
  ['a matrix parameter on a dot segment (Tomcat, Spring)', '/v1/..;/admin'],
  ['a matrix parameter', '/v1/items;jsessionid=abc'],
  ['an empty matrix parameter', '/v1/;/admin'],
  ['an escaped semicolon after dots', '/v1/..%3b/admin'],
  ['double-escaped dots', '/v1/%252e%252e/admin'],
  ['double-escaped dots, upper case', '/v1/%252E%252E/admin'],
  ['a double-escaped slash', '/v1/%252f/admin'],
  ['a double-escaped backslash', '/v1/%255c/admin'],
  ['a double-escaped percent', '/v1/%2525'],
  ['an escaped backslash', '/v1/%5c..%5cadmin'],
  ['overlong two-byte dots', '/v1/%c0%ae%c0%ae/admin'],
  ['an overlong dot, upper case', '/v1/%C0%AE/admin'],
  ['an overlong slash', '/v1/%c0%af/admin'],
  ['an overlong backslash', '/v1/%c1%9c/admin'],
  ['an overlong three-byte dot', '/v1/%e0%80%ae/admin'],
  ['an overlong four-byte dot', '/v1/%f0%80%80%ae/admin'],
  ['an escaped surrogate', '/v1/%ed%a0%80'],
  ['a byte that is never UTF-8', '/v1/%ff'],
  ['IIS %u escapes of dots', '/v1/%u002e%u002e/admin'],
  ['an IIS %u escape', '/v1/%u2216'],
  ['an escaped NUL after dots', '/v1/..%00/admin'],
  ['an escaped line feed', '/v1/%0a'],
  ['an escaped tab before dots', '/v1/%09..'],
  ['an escaped C1 control (NEL)', '/v1/%c2%85'],
  ['an escaped DEL', '/v1/%7f'],
  ['fullwidth full stops (NFKC "..")', '/v1/%ef%bc%8e%ef%bc%8e/admin'],
  ['one-dot leaders (NFKC "..")', '/v1/%e2%80%a4%e2%80%a4/admin'],
  ['a two-dot leader (NFKC "..")', '/v1/%e2%80%a5/admin'],
  ['a fullwidth solidus', '/v1/%ef%bc%8f/admin'],
  ['a fullwidth reverse solidus', '/v1/%ef%bc%bc/admin'],
  ['a fullwidth semicolon', '/v1/%ef%bc%9b/admin'],
  ['three dots (".." to Windows)', '/v1/...'],
  ['dots and a space (".." to Windows)', '/v1/..%20/admin'],
  ['dots around a space', '/v1/.%20./admin'],
];

/** Paths that every reading agrees on, which the path rule lets through. */
export const PATHS_ALLOWED: string[] = [
  '/v1/items',
  '/v1/a%20b',
  '/v1/caf%C3%A9',
  '/v1/%E6%9D%B1%E4%BA%AC',
  '/v1/file.json',
  '/v1/.well-known',
  '/v1/a..b',
  '/v1/v1.2/x',
  '/v1/a-b_c~d',
  '/v1/@me',
  '/v1/a:b,c',
  '/v1/x?next=%2F%3F;a=..',
];
