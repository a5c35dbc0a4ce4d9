// `npm run bench`: drives a real Atrium server (a child process) over HTTP with
// autocannon and prints requests/s and p50/p99 latency for each scenario, next
// to a bare-Fastify baseline serving the same bytes. SQLite always; PostgreSQL
// too when ATRIUM_BENCH_DATABASE_URL (or ATRIUM_TEST_DATABASE_URL) is set.
// A benchmark, not a test: it asserts nothing about speed.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { createContext } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startSession } from '../src/identity/sessions.js';
import { createLogger } from '../src/logger.js';
import type { Actor } from '../src/identity/actor.js';
import { createHuman, getMember } from '../src/members/service.js';
import { assignRole } from '../src/roles/service.js';
import { getSpace, proposeSpace, transitionSpace } from '../src/spaces/service.js';
import { join as joinSpace, leave } from '../src/spaces/admission.js';
import { postMessage, prepareBody } from '../src/messages/service.js';
import { createResource, prepareContent } from '../src/resources/service.js';

const SECONDS = Number(process.env.ATRIUM_BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.ATRIUM_BENCH_CONNECTIONS ?? 10);
const ROOT = new URL('..', import.meta.url).pathname;

/** About 4 KiB of Markdown, a typical working document. */
const RESOURCE_TEXT = Array.from({ length: 64 }, (_, i) => `- item ${i}: notes about **topic ${i}**, see [link](https://example.test/${i})`).join('\n');

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function main(): Promise<void> {
  const pgUrl = process.env.ATRIUM_BENCH_DATABASE_URL ?? process.env.ATRIUM_TEST_DATABASE_URL;
  const backends: Array<{ name: string; url: (dir: string, schema: string) => string }> = [
    { name: 'sqlite', url: (dir) => `sqlite:${join(dir, 'bench.db')}` },
  ];
  if (pgUrl) backends.push({ name: 'postgres', url: (_dir, schema) => withSearchPath(pgUrl, schema) });
  console.log(`Atrium benchmark: ${SECONDS}s per scenario, ${CONNECTIONS} connections\n`);
  for (const backend of backends) await benchBackend(backend.name, backend.url, pgUrl);
}

async function benchBackend(name: string, urlFor: (dir: string, schema: string) => string, pgUrl?: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-'));
  const schema = `atrium_bench_${randomBytes(4).toString('hex')}`;
  if (name === 'postgres') await pgQuery(pgUrl!, `create schema ${schema}`);
  const children: ChildProcess[] = [];
  try {
    const databaseUrl = urlFor(dir, schema);
    const port = await freePort();
    const env = {
      ...process.env,
      ATRIUM_DATABASE_URL: databaseUrl,
      ATRIUM_PORT: String(port),
      ATRIUM_HOST: '127.0.0.1',
      ATRIUM_LOG_LEVEL: 'warn',
      ATRIUM_BASE_URL: `http://127.0.0.1:${port}`,
    };
    const seeded = await seed(databaseUrl, dir);
    const server = spawn(process.execPath, [join(ROOT, 'bin', 'atrium.js'), 'serve'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(server);
    await waitForLine(server, /listening/);
    const base = `http://127.0.0.1:${port}`;

    const feedPath = `/v0/spaces/${seeded.space}/events?limit=100`;
    const feedBytes = Buffer.from(await (await fetch(base + feedPath)).arrayBuffer());
    const spaceBytes = Buffer.from(await (await fetch(`${base}/v0/spaces/${seeded.space}`)).arrayBuffer());

    const results: Result[] = [];
    results.push(await run('read Space feed page (limit 100)', { url: base + feedPath }));
    let n = 0;
    results.push(
      await run('propose a Space (write + event)', {
        url: `${base}/v0/spaces`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${seeded.session}` },
        requests: [
          {
            setupRequest: (req: Record<string, unknown>) => {
              n += 1;
              return { ...req, body: JSON.stringify({ slug: `bench-${process.pid}-${n}`, name: `Bench ${process.pid} ${n}` }) };
            },
          },
        ],
      }),
    );

    results.push(
      await run('post a message with three mentions', {
        url: `${base}/v0/spaces/${seeded.space}/channels/general/messages`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${seeded.session}` },
        body: JSON.stringify({ body: 'Could @bench-a, @bench-b and @bench-c review the **draft** before Friday?' }),
      }),
    );
    results.push(
      await run('read an inbox page (limit 100)', {
        url: `${base}/v0/me/inbox-events?limit=100`,
        headers: { authorization: `Bearer ${seeded.session}` },
      }),
    );
    const resourcePath = `/v0/spaces/${seeded.space}/resources/${seeded.resource}`;
    let edit = 0;
    results.push(
      await run('create a Resource version (write)', {
        url: `${base}${resourcePath}/versions`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${seeded.session}` },
        requests: [
          {
            // Distinct text each time, so every version also stores a new blob.
            setupRequest: (req: Record<string, unknown>) => {
              edit += 1;
              return { ...req, body: JSON.stringify({ content: `${RESOURCE_TEXT}\nEdit ${edit}.\n` }) };
            },
          },
        ],
      }),
    );
    results.push(await run('read a Resource (4 KiB of Markdown)', { url: base + resourcePath }));

    const feedFile = join(dir, 'feed.json');
    const spaceFile = join(dir, 'space.json');
    writeFileSync(feedFile, feedBytes);
    writeFileSync(spaceFile, spaceBytes);
    const basePort = await freePort();
    const baseline = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'baseline-server.ts'), String(basePort), feedFile, spaceFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(baseline);
    await waitForLine(baseline, /ready/);
    const baseGet = await run('baseline: bare Fastify GET, same bytes', { url: `http://127.0.0.1:${basePort}${feedPath}` });
    const basePost = await run('baseline: bare Fastify POST, same bytes', {
      url: `http://127.0.0.1:${basePort}/v0/spaces`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"slug":"x","name":"xyz"}',
    });

    console.log(`== ${name} ==`);
    print(results[0]!, baseGet);
    print(results[1]!, basePost);
    print(results[2]!, basePost);
    print(results[3]!, baseGet);
    print(results[4]!, basePost);
    print(results[5]!, baseGet);
    print(baseGet, baseGet);
    print(basePost, basePost);
    console.log('');
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    if (name === 'postgres') await pgQuery(pgUrl!, `drop schema ${schema} cascade`);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An owner with a session, an active Space whose feed holds a few hundred
 * events, three members to mention, 150 mentions of the owner for its inbox,
 * and one Resource of about 4 KiB of Markdown.
 */
async function seed(databaseUrl: string, dir: string): Promise<{ session: string; space: string; resource: string }> {
  const config = loadConfig({ ATRIUM_DATABASE_URL: databaseUrl });
  config.dataDir = dir;
  const ctx = await createContext(config, { log: createLogger('warn') });
  try {
    const system = { system: 'admin_cli' } as const;
    const session = await ctx.db.transaction(async (tx) => {
      await createHuman(tx, system, { handle: 'bench-owner', email: 'bench-owner@example.test' });
      await assignRole(tx, system, { member: 'bench-owner', role: 'owner' });
      return (await startSession(tx, 'bench-owner')).token;
    });
    const owner: Actor = {
      kind: 'member',
      member: await getMember(ctx.db.kysely, 'bench-owner'),
      credential: { type: 'session', id: 'seed' },
    };
    await ctx.db.transaction((tx) => proposeSpace(tx, owner, { slug: 'bench', name: 'Bench' }));
    await ctx.db.transaction((tx) => transitionSpace(tx, { kind: 'steward' }, 'bench', 'approve'));
    for (let i = 0; i < 150; i++) {
      await ctx.db.transaction((tx) => joinSpace(tx, owner, 'bench'));
      await ctx.db.transaction((tx) => leave(tx, owner, 'bench'));
    }
    await ctx.db.transaction(async (tx) => {
      for (const handle of ['bench-a', 'bench-b', 'bench-c']) await createHuman(tx, system, { handle, email: `${handle}@example.test` });
    });
    const mentioner: Actor = { kind: 'member', member: await getMember(ctx.db.kysely, 'bench-a'), credential: { type: 'session', id: 'seed' } };
    const space = await getSpace(ctx.db.kysely, 'bench');
    for (let i = 0; i < 150; i++) {
      const body = await prepareBody(ctx.mentions, `note ${i} for @bench-owner`);
      await ctx.db.transaction((tx) => postMessage(tx, mentioner, space, { channel: 'general' }, body));
    }
    const resource = await ctx.db.transaction((tx) =>
      createResource(tx, owner, 'bench', { name: 'Bench notes', content: prepareContent(RESOURCE_TEXT, undefined, config.resourceMaxBytes) }),
    );
    return { session, space: 'bench', resource: resource.id };
  } finally {
    await ctx.close();
  }
}

async function run(name: string, opts: Record<string, unknown>): Promise<Result> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts } as autocannon.Options);
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

function print(r: Result, baseline: Result): void {
  const ratio = baseline.rps > 0 ? (r.rps / baseline.rps).toFixed(2) : 'n/a';
  console.log(
    `${r.name.padEnd(42)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${String(r.p50).padStart(4)} ms   p99 ${String(r.p99).padStart(4)} ms   ` +
      `${ratio}x baseline${r.errors ? `   (${r.errors} errors/non-2xx)` : ''}`,
  );
}

function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

async function pgQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (pattern.test(line)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before it was ready`)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

await main();
