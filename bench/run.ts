// `npm run bench`: drives real Atrium servers (child processes) over HTTP with
// autocannon and prints requests/s and p50/p99 latency for each scenario, as a
// ratio to a bare-Fastify baseline serving the same bytes in the same run, and
// the server's CPU time per request (steadier than rates on a small machine).
// SQLite always; PostgreSQL too when ATRIUM_BENCH_DATABASE_URL (or
// ATRIUM_TEST_DATABASE_URL) is set. With ATRIUM_BENCH_COMPARE=<path of another
// Atrium checkout>, every scenario also runs against that checkout ("before"),
// side by side with this one ("after"). The search group (bench/search.ts,
// ATRIUM_BENCH_ONLY=search) seeds a database of its own with a million messages.
// The scale group (bench/scale.ts, ATRIUM_BENCH_ONLY=scale) grows one of its own
// from 10³ to 10⁶ events in a Space's log (with 10,000 members, and an inbox of
// 100,000 mentions) and reads, posts and lists at each size, to show whether a
// request's cost stays flat as the data behind it grows.
// A benchmark, not a test: it asserts nothing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { RESOURCE_TEXT } from './resource-text.js';
import { copyPostgresSchema, readUnits, replayPostgres, replaySqlite, type Replayed } from './replay.js';
import { SCALE_SCENARIOS, scaleBench } from './scale.js';
import { SEARCH_SCENARIOS, searchBench } from './search.js';
import { webhookStorm, type StormLatencies } from './webhook-storm.js';

const SECONDS = Number(process.env.ATRIUM_BENCH_SECONDS ?? 5);
const WARM_UP_SECONDS = 1;
const CONNECTIONS = Number(process.env.ATRIUM_BENCH_CONNECTIONS ?? 10);
const WRITERS = 16;
const WAKES = Number(process.env.ATRIUM_BENCH_WAKES ?? 200);
/**
 * Webhook subscriptions in the webhook scenario (20 per subscriber, the per-Space
 * quota): ATRIUM_BENCH_WEBHOOK_SUBSCRIPTIONS, a multiple of 20, for another
 * count (10000 for the scale of a large host; the seed makes a subscriber per 20).
 */
const SUBSCRIPTIONS = Number(process.env.ATRIUM_BENCH_WEBHOOK_SUBSCRIPTIONS ?? 1000);
if (!Number.isInteger(SUBSCRIPTIONS / 20) || SUBSCRIPTIONS <= 0) throw new Error('ATRIUM_BENCH_WEBHOOK_SUBSCRIPTIONS must be a positive multiple of 20');
/** Posts whose wakes (one per subscription each) are timed. */
const WEBHOOK_POSTS = Number(process.env.ATRIUM_BENCH_WEBHOOK_POSTS ?? 10);
/** Calls timed each way in the credential gateway scenario. */
const BROKERED_CALLS = Number(process.env.ATRIUM_BENCH_BROKERED_CALLS ?? 200);
const ROOT = resolve(new URL('..', import.meta.url).pathname);
/** ATRIUM_BENCH_ONLY=<regular expression>: run only the scenarios whose names match (case-insensitive), for a quick look at one. */
const ONLY = process.env.ATRIUM_BENCH_ONLY ? new RegExp(process.env.ATRIUM_BENCH_ONLY, 'i') : undefined;
const wanted = (name: string): boolean => ONLY === undefined || ONLY.test(name);
/** The main group's scenarios by name: ATRIUM_BENCH_ONLY matches these, and the group's database is seeded only when one of them runs. */
const MAIN = {
  feed: 'Space feed page, 100 events (anonymous)',
  anonymousPoll: 'empty tail poll (anonymous)',
  keyPoll: 'empty tail poll (member key)',
  tokenPoll: 'empty tail poll (OAuth token)',
  inbox: 'inbox page, 100 events (session)',
  resource: 'read a Resource (4 KiB of Markdown)',
  post: `post a message, ${WRITERS} writers (member key)`,
  mentions: 'post a message with three mentions (writers in turn)',
  propose: 'propose a Space (write + event)',
  version: 'create a Resource version (write)',
  longPoll: 'write to long-poll receipt',
  brokered: 'brokered call',
  storm: 'webhook storm',
  webhooks: `post a message, ${WRITERS} writers, ${SUBSCRIPTIONS} webhook subscriptions`,
} as const;

interface Result {
  /** The server's CPU time (user + system, from /proc) per answered request, in microseconds; undefined off Linux. */
  cpuUs: number | undefined;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

interface Seeded {
  session: string;
  /** A session of the first writer (absent in checkouts seeded before it was added). */
  writerSession?: string;
  /** Member keys of sixteen distinct writers. */
  writers: string[];
  /** Member keys of fifty members who own the webhook scenario's subscriptions. */
  subscribers: string[];
  space: string;
  resource: string;
}

/** A scenario's result for one checkout, and what it is compared with. */
type Row = { name: string; baseline: Baseline; results: Map<string, Result | undefined> };
/** What bare Fastify answers for comparison: a feed page's bytes, an empty page's, a search page's, or a POST. */
type Baseline = 'get' | 'empty' | 'search' | 'post';

async function main(): Promise<void> {
  const pgUrl = process.env.ATRIUM_BENCH_DATABASE_URL ?? process.env.ATRIUM_TEST_DATABASE_URL;
  const compare = process.env.ATRIUM_BENCH_COMPARE ? resolve(process.env.ATRIUM_BENCH_COMPARE) : undefined;
  const trees = [...(compare ? [{ label: 'before', root: compare }] : []), { label: compare ? 'after' : 'this', root: ROOT }];
  console.log(`Atrium benchmark: ${SECONDS}s per scenario, ${CONNECTIONS} connections (${WRITERS} for the write-heavy one)`);
  for (const tree of trees) console.log(`  ${tree.label}: ${tree.root}`);
  for (const tree of trees) build(tree.root);
  console.log('Each cell: requests/s, p50/p99 latency, the ratio to bare Fastify, the server process\'s CPU time per request.');
  console.log('');
  // ATRIUM_BENCH_BACKENDS=postgres (or sqlite): one database only.
  const backends = (pgUrl ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)).filter((b) => !process.env.ATRIUM_BENCH_BACKENDS || process.env.ATRIUM_BENCH_BACKENDS.split(',').includes(b));
  for (const backend of backends) {
    await benchBackend(backend, trees, pgUrl);
  }
}

async function benchBackend(backend: 'sqlite' | 'postgres', trees: Array<{ label: string; root: string }>, pgUrl?: string): Promise<void> {
  const rows: Row[] = [];
  const row = (name: string, baseline: Row['baseline']): Row => {
    let found = rows.find((r) => r.name === name);
    if (!found) rows.push((found = { name, baseline, results: new Map() }));
    return found;
  };
  const wakes = new Map<string, number[] | undefined>();
  const brokered = new Map<string, { direct: number[]; brokered: number[] } | undefined>();
  const webhookWakes = new Map<string, number[] | undefined>();
  const storms = new Map<string, StormLatencies | undefined>();
  const bytes: { feed?: Buffer; empty?: Buffer; search?: Buffer } = {};
  const searchNotes = new Map<string, string[]>();
  /** Each write scenario's bare-SQL replay (bench/replay.ts), by scenario and checkout. */
  const replays = new Map<string, Map<string, Replayed & { requests: number }>>();

  // The main group's database is seeded only when one of its scenarios runs.
  for (const tree of trees.filter(() => Object.values(MAIN).some(wanted))) {
    const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-'));
    const schema = `atrium_bench_${randomBytes(4).toString('hex')}`;
    if (backend === 'postgres') await pgQuery(pgUrl!, `create schema ${schema}`);
    const children: ChildProcess[] = [];
    const nodeAt = new Map<string, ChildProcess>();
    try {
      const databaseUrl = backend === 'postgres' ? withSearchPath(pgUrl!, schema) : `sqlite:${join(dir, 'bench.db')}`;
      const seeded = await seed(tree.root, databaseUrl, dir);
      const traceFile = join(dir, 'statements.jsonl');
      const replayCopy = join(dir, 'replay.db');
      const trace = { ATRIUM_BENCH_TRACE: traceFile, ...(backend === 'sqlite' ? { ATRIUM_BENCH_TRACE_SQLITE: join(dir, 'bench.db'), ATRIUM_BENCH_TRACE_COPY: replayCopy } : {}) };
      const node = async (extraEnv: Record<string, string> = {}): Promise<string> => {
        const { url, child } = await startNode(tree.root, databaseUrl, dir, { ...trace, ...extraEnv });
        children.push(child);
        serverPid = child.pid;
        nodeAt.set(url, child);
        return url;
      };
      let serverPid: number | undefined;
      const base = await node();
      const basePid = serverPid;
      const feedPath = `/v0/spaces/${seeded.space}/events?limit=100`;
      const head = (await (await fetch(`${base}/v0/spaces/${seeded.space}/events?limit=500&since=0`)).json()) as { events: Array<{ cursor: number }> };
      const headCursor = head.events.at(-1)!.cursor;
      const tailPath = `/v0/spaces/${seeded.space}/events?since=${headCursor}&limit=100`;
      bytes.feed ??= Buffer.from(await (await fetch(base + feedPath)).arrayBuffer());
      bytes.empty ??= Buffer.from(await (await fetch(base + tailPath)).arrayBuffer());
      const member = { authorization: `Bearer ${seeded.writers[0]}` };
      // Each request as the next writer, so concurrent requests come from distinct members.
      let turn = 0;
      const nextWriter = (body: string) => [
        {
          setupRequest: (req: Record<string, unknown>) => {
            turn += 1;
            const headers = { ...(req.headers as Record<string, string>), authorization: `Bearer ${seeded.writers[turn % seeded.writers.length]}` };
            return { ...req, headers, body };
          },
        },
      ];
      const owner = { authorization: `Bearer ${seeded.session}` };
      const json = { 'content-type': 'application/json' };
      const put = async (name: string, baseline: Baseline, opts: Record<string, unknown>) => {
        if (!wanted(name)) return;
        const result = await run(opts, basePid);
        row(name, baseline).results.set(tree.label, result);
        // Every write is also measured against its own statements replayed with no service in between.
        if (baseline === 'post' && process.env.ATRIUM_BENCH_REPLAY !== '0') {
          const replayed = await replayScenario(name, result, opts);
          if (!replays.has(name)) replays.set(name, new Map());
          replays.get(name)!.set(tree.label, replayed);
        }
      };
      /**
       * Copies the database, records the statements of as many requests as the
       * scenario answered in its measured run, and replays them on the copy.
       */
      const replayScenario = async (name: string, measured: Result, opts: Record<string, unknown>): Promise<Replayed & { requests: number }> => {
        const child = nodeAt.get(base)!;
        const requests = Math.min(20_000, Math.max(500, Math.round(measured.rps * SECONDS)));
        const connections = (opts.connections as number | undefined) ?? CONNECTIONS;
        // On SQLite the server copies its database itself as recording starts (bench/statement-trace.mjs).
        const copy = backend === 'postgres' ? `${schema}_replay` : replayCopy;
        if (backend === 'postgres') copyPostgresSchema(pgUrl!, schema, copy);
        try {
          await signalled(child, /^statement trace on/);
          await autocannon({ connections: CONNECTIONS, ...opts, amount: requests } as autocannon.Options);
          await signalled(child, /^statement trace off/);
          const units = readUnits(traceFile);
          const replayed = backend === 'postgres' ? await replayPostgres(pgUrl!, copy, units, requests, connections) : replaySqlite(copy, units, requests);
          return { ...replayed, requests };
        } finally {
          if (backend === 'postgres') await pgQuery(pgUrl!, `drop schema if exists ${copy} cascade`);
          else for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
          // ATRIUM_BENCH_KEEP_TRACES=<dir>: keep each scenario's statements there, to read what a request costs in SQL.
          if (process.env.ATRIUM_BENCH_KEEP_TRACES && existsSync(traceFile)) copyFileSync(traceFile, join(process.env.ATRIUM_BENCH_KEEP_TRACES, `${backend}-${tree.label}-${name.replace(/\W+/g, '-')}.jsonl`));
          rmSync(traceFile, { force: true });
        }
      };

      // The OAuth token is obtained before any scenario runs, so that whatever its consent writes
      // (a grant, its event) has settled before the key poll it is compared with, as well as before its own.
      const token = wanted(MAIN.tokenPoll) ? await oauthAccessToken(base, seeded.writerSession ?? seeded.session, seeded.writerSession ? 'bench-writer-0' : 'bench-owner') : undefined;
      // Reads first, over the seeded log, so writes do not change what they read.
      await put(MAIN.feed, 'get', { url: base + feedPath });
      await put(MAIN.anonymousPoll, 'empty', { url: base + tailPath });
      await put(MAIN.keyPoll, 'empty', { url: base + tailPath, headers: member });
      // The same poll by the same member with an OAuth access token for the REST API: a token check should cost no more than a key check.
      if (token) await put(MAIN.tokenPoll, 'empty', { url: base + tailPath, headers: { authorization: `Bearer ${token}` } });
      await put(MAIN.inbox, 'get', { url: `${base}/v0/me/inbox-events?limit=100`, headers: owner });
      await put(MAIN.resource, 'get', { url: `${base}/v0/spaces/${seeded.space}/resources/${seeded.resource}` });
      await put(MAIN.post, 'post', {
        url: `${base}/v0/spaces/${seeded.space}/channels/general/messages`,
        method: 'POST',
        connections: WRITERS,
        headers: json,
        requests: nextWriter(JSON.stringify({ body: 'A short status note, nothing to parse for long.' })),
      });
      await put(MAIN.mentions, 'post', {
        url: `${base}/v0/spaces/${seeded.space}/channels/general/messages`,
        method: 'POST',
        headers: json,
        requests: nextWriter(JSON.stringify({ body: 'Could @bench-a, @bench-b and @bench-c review the **draft** before Friday?' })),
      });
      let n = 0;
      await put(MAIN.propose, 'post', {
        url: `${base}/v0/spaces`,
        method: 'POST',
        headers: { ...json, ...owner },
        requests: [
          {
            setupRequest: (req: Record<string, unknown>) => {
              n += 1;
              return { ...req, body: JSON.stringify({ slug: `bench-${process.pid}-${n}`, name: `Bench ${process.pid} ${n}` }) };
            },
          },
        ],
      });
      let edit = 0;
      await put(MAIN.version, 'post', {
        url: `${base}/v0/spaces/${seeded.space}/resources/${seeded.resource}/versions`,
        method: 'POST',
        headers: { ...json, ...owner },
        requests: [
          {
            // Distinct text each time, so every version also stores a new blob.
            setupRequest: (req: Record<string, unknown>) => {
              edit += 1;
              return { ...req, body: JSON.stringify({ content: `${RESOURCE_TEXT}\nEdit ${edit}.\n` }) };
            },
          },
        ],
      });
      // Long polls: a write on one node wakes a reader waiting on another (PostgreSQL), or on the same node (SQLite).
      if (wanted(MAIN.longPoll)) {
        const reader = backend === 'postgres' ? await node() : base;
        wakes.set(tree.label, await wakeLatencies(base, reader, seeded));
      }
      // A node of its own, stopped afterwards: on SQLite a second process on the file would contend with the next scenarios' writes.
      const stopNode = async (url: string): Promise<void> => {
        const child = nodeAt.get(url);
        if (!child || child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      };
      // The gateway's ledger on the backend's own kind of store (its tables have names of their own).
      if (wanted(MAIN.brokered)) brokered.set(tree.label, await brokeredCalls(node, stopNode, dir, seeded, backend === 'postgres' ? databaseUrl : `sqlite:${join(dir, 'gateway-bench.db')}`));
      // Cleans up after itself (its endpoints are deleted), so the webhook scenario below starts from a quiet queue.
      if (wanted(MAIN.storm)) storms.set(tree.label, await webhookStorm(base, seeded, () => WakeReceiver.start()));
      // Webhooks last: their subscriptions stay, and every later write would wake them.
      const receiver = await WakeReceiver.start();
      try {
        if (wanted(MAIN.webhooks) && (await subscribeAll(base, seeded, receiver))) {
          await put(MAIN.webhooks, 'post', {
            url: `${base}/v0/spaces/${seeded.space}/channels/general/messages`,
            method: 'POST',
            connections: WRITERS,
            headers: json,
            requests: nextWriter(JSON.stringify({ body: 'A short status note, nothing to parse for long.' })),
          });
          webhookWakes.set(tree.label, await webhookLatencies(base, seeded, receiver));
        }
      } finally {
        await receiver.stop();
      }
    } finally {
      for (const child of children) child.kill('SIGTERM');
      await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
      if (backend === 'postgres') await pgQuery(pgUrl!, `drop schema ${schema} cascade`);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // The search group: a database of its own, of a million messages (bench/search.ts).
  for (const tree of trees.filter(() => SEARCH_SCENARIOS.some(wanted))) {
    const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-search-'));
    const schema = `atrium_bench_${randomBytes(4).toString('hex')}`;
    if (backend === 'postgres') await pgQuery(pgUrl!, `create schema ${schema}`);
    try {
      const databaseUrl = backend === 'postgres' ? withSearchPath(pgUrl!, schema) : `sqlite:${join(dir, 'bench.db')}`;
      const outcome = await searchBench(tree.root, databaseUrl, dir, {
        wanted,
        measure: run,
        async startNode(url, env) {
          const { url: base, child } = await startNode(tree.root, url, dir, env);
          return {
            url: base,
            pid: child.pid,
            async stop() {
              if (child.exitCode !== null) return;
              const exited = new Promise((r) => child.once('exit', r));
              child.kill('SIGTERM');
              await exited;
            },
          };
        },
      });
      if (!outcome) continue;
      for (const { name, baseline, result } of outcome.rows) row(name, baseline).results.set(tree.label, result);
      bytes.search ??= outcome.page;
      searchNotes.set(tree.label, outcome.notes);
    } finally {
      if (backend === 'postgres') await pgQuery(pgUrl!, `drop schema ${schema} cascade`);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // The scale group: a database of its own, grown from 10³ to 10⁶ events (bench/scale.ts); only when asked for by name, as it takes many minutes.
  const scaleNotes = new Map<string, string[]>();
  for (const tree of trees.filter(() => ONLY !== undefined && SCALE_SCENARIOS.some(wanted))) {
    const outcome = await scaleBench(tree.root, backend, pgUrl, { wanted, measure: run, startNode: (url, dir, env) => startNode(tree.root, url, dir, env) });
    for (const { name, baseline, result } of outcome.rows) row(name, baseline).results.set(tree.label, result);
    bytes.feed ??= outcome.page;
    scaleNotes.set(tree.label, outcome.notes);
  }

  const baselines = await bareFastify(bytes, new Set(rows.map((r) => r.baseline)));
  console.log(`== ${backend} ==`);
  const labels = trees.map((t) => t.label);
  const width = Math.max(46, ...rows.map((r) => r.name.length + 2));
  console.log(`${'scenario'.padEnd(width)}${labels.map((l) => l.padStart(40)).join('')}`);
  for (const r of rows) {
    const bare = baselines[r.baseline]!;
    const cells = labels.map((label) => cell(r.results.get(label), bare).padStart(40));
    console.log(`${r.name.padEnd(width)}${cells.join('')}`);
  }
  for (const [kind, bare] of Object.entries(baselines)) {
    const name = { get: 'bare Fastify GET, feed page bytes', empty: 'bare Fastify GET, empty page bytes', search: 'bare Fastify GET, search page bytes', post: 'bare Fastify POST' }[kind]!;
    console.log(`${name.padEnd(width)}${labels.map(() => cell(bare, bare).padStart(40)).join('')}`);
  }
  if (Object.values(MAIN).some(wanted)) {
    const wakeCells = labels.map((label) => {
      const samples = wakes.get(label);
      if (!samples) return 'n/a (no long poll)'.padStart(40);
      return `p50 ${percentile(samples, 50).toFixed(1)} ms  p99 ${percentile(samples, 99).toFixed(1)} ms`.padStart(40);
    });
    console.log(`${`write to long-poll receipt (${backend === 'postgres' ? 'other node' : 'same node'})`.padEnd(width)}${wakeCells.join('')}`);
    const webhookCells = labels.map((label) => {
      const samples = webhookWakes.get(label);
      if (!samples) return 'n/a (no webhook subscriptions)'.padStart(40);
      return `p50 ${percentile(samples, 50).toFixed(1)} ms  p99 ${percentile(samples, 99).toFixed(1)} ms`.padStart(40);
    });
    console.log(`${`write to webhook receipt (${SUBSCRIPTIONS} subs, debounce 0)`.padEnd(width)}${webhookCells.join('')}`);
    const stormCells = labels.map((label) => {
      const s = storms.get(label);
      if (!s) return 'n/a (no webhook subscriptions)'.padStart(40);
      const both = (list: number[]) => `${percentile(list, 50).toFixed(0)}/${percentile(list, 99).toFixed(0)}`;
      return `${both(s.unloaded)} → ${both(s.storm)} ms (${s.held} held)`.padStart(40);
    });
    console.log(`${'webhook wake p50/p99, unloaded → 80 hung subs'.padEnd(width)}${stormCells.join('')}`);
    const brokeredCells = labels.map((label) => {
      const samples = brokered.get(label);
      if (!samples) return 'n/a (no credential gateway)'.padStart(40);
      const added = (p: number) => (percentile(samples.brokered, p) - percentile(samples.direct, p)).toFixed(1);
      return `+${added(50)} ms p50  +${added(99)} ms p99`.padStart(40);
    });
    console.log(`${`brokered call over a direct one (added, ${backend === 'postgres' ? 'PostgreSQL' : 'SQLite'} ledger)`.padEnd(width)}${brokeredCells.join('')}`);
    for (const label of labels) {
      const samples = brokered.get(label);
      if (!samples) continue;
      const line = (name: string, list: number[]) => `${name} p50 ${percentile(list, 50).toFixed(1)} ms  p99 ${percentile(list, 99).toFixed(1)} ms`;
      console.log(`  ${label}: ${line('direct', samples.direct)}; ${line('brokered', samples.brokered)} (${samples.brokered.length} calls each, one at a time)`);
    }
  }
  if (replays.size > 0) {
    console.log('');
    console.log(`Writes against their own statements replayed with no service in between (${backend === 'postgres' ? 'each scenario\'s concurrency' : 'one connection'}): the service's rate, the replay's, the ratio.`);
    for (const [name, byLabel] of replays) {
      const cells = labels.map((label) => {
        const replay = byLabel.get(label);
        const service = rows.find((r) => r.name === name)?.results.get(label);
        if (!replay || !service) return 'n/a'.padStart(40);
        const failed = replay.failed > 0 ? ` (${replay.failed} failed)` : '';
        return `${service.rps.toFixed(0)}/s of ${replay.rps.toFixed(0)}/s ${(service.rps / replay.rps).toFixed(2)}x${failed}`.padStart(40);
      });
      console.log(`${name.padEnd(width)}${cells.join('')}`);
    }
    for (const [name, byLabel] of replays) {
      for (const label of labels) {
        const replay = byLabel.get(label);
        if (replay) console.log(`  ${label}, ${name}: ${(replay.statements / replay.requests).toFixed(1)} statements in ${(replay.units / replay.requests).toFixed(2)} units a request (${replay.requests} requests replayed)`);
      }
    }
    console.log('');
  }
  for (const label of labels) {
    const notes = searchNotes.get(label);
    if (!notes) continue;
    console.log(`search, ${label}:`);
    for (const note of notes) console.log(`  ${note}`);
  }
  for (const [label, notes] of scaleNotes) {
    console.log(`scale, ${label}:`);
    for (const note of notes) console.log(`  ${note}`);
  }
  console.log('');
}

/**
 * Time from sending a write on one node to a long-polling reader receiving it:
 * an upper bound on commit-to-receipt, since the commit happens after the send.
 */
async function wakeLatencies(writer: string, reader: string, seeded: Seeded): Promise<number[] | undefined> {
  const feed = `${reader}/v0/spaces/${seeded.space}/events`;
  const probe = await fetch(`${feed}?since=0&limit=1&wait=0`);
  const contract = (await (await fetch(`${reader}/v0/openapi.json`)).json()) as { paths: Record<string, { get?: { parameters?: Array<{ name: string }> } }> };
  if (!probe.ok || !contract.paths['/v0/spaces/{slug}/events']?.get?.parameters?.some((p) => p.name === 'wait')) return undefined;
  let since = ((await (await fetch(`${feed}?since=0&limit=500`)).json()) as { cursor: number }).cursor;
  for (;;) {
    const page = (await (await fetch(`${feed}?since=${since}&limit=500`)).json()) as { cursor: number; events: unknown[] };
    if (page.events.length === 0) break;
    since = page.cursor;
  }
  const samples: number[] = [];
  for (let i = 0; i < WAKES; i++) {
    const received = fetch(`${feed}?since=${since}&limit=100&wait=10`).then(async (res) => {
      const at = performance.now();
      return { at, page: (await res.json()) as { cursor: number; events: unknown[] } };
    });
    const sent = performance.now();
    const write = await fetch(`${writer}/v0/spaces/${seeded.space}/channels/general/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${seeded.writers[0]}` },
      body: JSON.stringify({ body: `wake ${i}` }),
    });
    if (write.status !== 201) throw new Error(`write answered ${write.status}`);
    const { at, page } = await received;
    if (page.events.length === 0) throw new Error('the long poll ended without the event');
    samples.push(Math.max(0, at - sent));
    since = page.cursor;
  }
  return samples;
}

/**
 * One approved external request through the credential gateway (POST
 * credential-calls: the service checks, the gateway issues, consumes, records
 * and sends) against the same request sent straight to the same loopback
 * upstream, one at a time, on a node of its own that runs the embedded
 * gateway. Undefined for a checkout without the gateway.
 */
async function brokeredCalls(
  node: (env?: Record<string, string>) => Promise<string>,
  stopNode: (url: string) => Promise<void>,
  dir: string,
  seeded: Seeded,
  ledgerUrl: string,
): Promise<{ direct: number[]; brokered: number[] } | undefined> {
  const upstream = createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  let base: string | undefined;
  try {
    const destinations = join(dir, 'gateway-destinations.json');
    const connections = join(dir, 'credential-connections.json');
    writeFileSync(destinations, JSON.stringify({
      destinations: [{
        id: 'bench-upstream', origins: [origin], pathPrefixes: ['/'], methods: ['GET'], requestHeaders: [], responseHeaders: ['content-type'],
        timeoutMs: 5000, maxResponseBytes: 65536, credential: { header: 'authorization', env: 'BENCH_PROVIDER_TOKEN', prefix: 'Bearer ' },
      }],
    }));
    writeFileSync(connections, JSON.stringify({
      connections: [{ id: 'bench', space: seeded.space, destinationId: 'bench-upstream', allowedMemberTypes: ['human', 'agent'], maxTtlSeconds: 60 }],
    }));
    base = await node({
      ATRIUM_GATEWAY_DESTINATIONS: destinations,
      ATRIUM_CREDENTIAL_CONNECTIONS: connections,
      ATRIUM_GATEWAY_PORT: String(await freePort()),
      ATRIUM_GATEWAY_DATABASE_URL: ledgerUrl,
      BENCH_PROVIDER_TOKEN: randomBytes(16).toString('hex'),
    });
    const contract = (await (await fetch(`${base}/v0/openapi.json`)).json()) as { paths: Record<string, unknown> };
    if (!Object.keys(contract.paths).some((path) => /^\/v0\/spaces\/\{\w+\}\/credential-calls$/.test(path))) return undefined;
    // Calls need an admitted member (posting in an open Space does not).
    const joined = await fetch(`${base}/v0/spaces/${seeded.space}/join`, { method: 'POST', headers: { authorization: `Bearer ${seeded.writers[0]}` } });
    if (!joined.ok) throw new Error(`join answered ${joined.status}`);
    const url = `${origin}/status`;
    const direct: number[] = [];
    const viaGateway: number[] = [];
    for (let i = 0; i < BROKERED_CALLS + 10; i++) {
      let started = performance.now();
      const straight = await fetch(url);
      await straight.arrayBuffer();
      if (i >= 10) direct.push(performance.now() - started);
      started = performance.now();
      const call = await fetch(`${base}/v0/spaces/${seeded.space}/credential-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${seeded.writers[0]}` },
        body: JSON.stringify({ connection_id: 'bench', purpose: 'bench', request: { method: 'GET', url } }),
      });
      const answer = (await call.json()) as { status?: number; detail?: string };
      if (call.status !== 200 || answer.status !== 200) throw new Error(`brokered call answered ${call.status}: ${answer.detail ?? ''}`);
      // The first calls warm both paths up (connections, compiled code).
      if (i >= 10) viaGateway.push(performance.now() - started);
    }
    return { direct, brokered: viaGateway };
  } finally {
    if (base) await stopNode(base);
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  }
}

/**
 * The webhook receiver (bench/wake-receiver.ts) as a child process, and when
 * each subscription was woken (epoch ms, as the receiver saw it).
 */
class WakeReceiver {
  readonly arrivals = new Map<string, number[]>();
  /** Per subscription, each wake's arrival and the newest cursor it announced. */
  readonly ranges = new Map<string, Array<{ at: number; through: number }>>();
  private waiter: (() => void) | undefined;
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<WakeReceiver> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'wake-receiver.ts'), String(port)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const receiver = new WakeReceiver(child, `http://127.0.0.1:${port}/wake`);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [subscription, at, through] = line.split(' ');
      if (!subscription || at === undefined) return;
      const list = receiver.arrivals.get(subscription) ?? [];
      list.push(Number(at));
      receiver.arrivals.set(subscription, list);
      const ranges = receiver.ranges.get(subscription) ?? [];
      ranges.push({ at: Number(at), through: Number(through ?? 0) });
      receiver.ranges.set(subscription, ranges);
      receiver.waiter?.();
    });
    await waitForLine(child, /ready/);
    return receiver;
  }

  /** Resolves when `done` holds, checked as wakes are reported. */
  until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiter = () => {
        if (!done()) return;
        this.waiter = undefined;
        resolve();
      };
    });
  }

  async stop(): Promise<void> {
    this.child.kill('SIGTERM');
    await new Promise((r) => (this.child.exitCode !== null ? r(null) : this.child.once('exit', r)));
  }
}

/** Creates and activates SUBSCRIPTIONS debounce-0 subscriptions to the bench Space; false where the checkout has no webhooks. */
async function subscribeAll(base: string, seeded: Seeded, receiver: WakeReceiver): Promise<boolean> {
  const contract = (await (await fetch(`${base}/v0/openapi.json`)).json()) as { paths: Record<string, unknown> };
  if (!contract.paths['/v0/spaces/{slug}/webhook-subscriptions'] || !seeded.subscribers) return false;
  const call = async (key: string, method: string, path: string, body?: unknown): Promise<{ id: string }> => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const perMember = 20;
  if (seeded.subscribers.length < SUBSCRIPTIONS / perMember) throw new Error(`the seed made ${seeded.subscribers.length} subscribers, too few for ${SUBSCRIPTIONS} subscriptions`);
  // Fifty subscribers at a time: the host closes connections past its share for one client address (docs/http.md).
  const subscribers = seeded.subscribers.slice(0, SUBSCRIPTIONS / perMember);
  for (let start = 0; start < subscribers.length; start += 50) {
    await Promise.all(
      subscribers.slice(start, start + 50).map(async (key) => {
        const endpoint = await call(key, 'POST', '/v0/webhook-endpoints', { url: receiver.url });
        await call(key, 'POST', `/v0/webhook-endpoints/${endpoint.id}/verify`);
        for (let i = 0; i < perMember; i++) {
          const collection = `/v0/spaces/${seeded.space}/webhook-subscriptions`;
          const sub = await call(key, 'POST', collection, { endpoint_id: endpoint.id, debounce_ms: 0 });
          await call(key, 'POST', `${collection}/${sub.id}/activate`);
        }
      }),
    );
  }
  return true;
}

/**
 * Time from sending a post to the wake that announces it, for each of the
 * SUBSCRIPTIONS (an upper bound on commit-to-receipt): the first wake whose
 * range reaches the post's cursor. The queue is drained first: a marker post
 * has been announced to every subscription, so no wake for the rate scenario's
 * thousands of posts is still owed (a wake for older events, arriving after a
 * post was sent, is not that post's).
 */
async function webhookLatencies(base: string, seeded: Seeded, receiver: WakeReceiver): Promise<number[]> {
  const now = () => performance.timeOrigin + performance.now();
  // The Space's newest event (a page's own `cursor` with `newest` is the node's head, which events elsewhere move).
  const head = async (): Promise<number> => {
    const page = await fetch(`${base}/v0/spaces/${seeded.space}/events?newest=1`, { headers: { authorization: `Bearer ${seeded.writers[0]}` } });
    return ((await page.json()) as { events: Array<{ cursor: number }> }).events[0]!.cursor;
  };
  const announced = (cursor: number) => () =>
    receiver.ranges.size === SUBSCRIPTIONS && [...receiver.ranges.values()].every((wakes) => wakes.some((wake) => wake.through >= cursor));
  await post(base, seeded, 'drain');
  await receiver.until(announced(await head()));
  const samples: number[] = [];
  for (let i = 0; i < WEBHOOK_POSTS; i++) {
    const sent = now();
    await post(base, seeded, `webhook wake ${i}`);
    // Only this loop writes now, so the Space's newest cursor is this post's.
    const cursor = await head();
    await receiver.until(announced(cursor));
    for (const wakes of receiver.ranges.values()) samples.push(wakes.find((wake) => wake.through >= cursor)!.at - sent);
  }
  return samples;
}

async function post(base: string, seeded: Seeded, body: string): Promise<void> {
  const write = await fetch(`${base}/v0/spaces/${seeded.space}/channels/general/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${seeded.writers[0]}` },
    body: JSON.stringify({ body }),
  });
  if (write.status !== 201) throw new Error(`write answered ${write.status}`);
}

function cell(result: Result | undefined, bare: Result): string {
  if (!result) return 'n/a';
  const ratio = bare.rps > 0 ? (result.rps / bare.rps).toFixed(2) : 'n/a';
  const cpu = result.cpuUs === undefined ? '' : ` ${result.cpuUs.toFixed(0)}µs`;
  return `${result.rps.toFixed(0)}/s ${result.p50}/${result.p99} ms ${ratio}x${cpu}${result.errors ? ` (${result.errors} err)` : ''}`;
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function bareFastify(bytes: { feed?: Buffer; empty?: Buffer; search?: Buffer }, needed: Set<Baseline>): Promise<Partial<Record<Baseline, Result>>> {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-bare-'));
  const port = await freePort();
  for (const [name, body] of Object.entries(bytes)) if (body) writeFileSync(join(dir, `${name}.json`), body);
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'baseline-server.ts'), String(port), dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await waitForLine(child, /ready/);
    const url = `http://127.0.0.1:${port}`;
    const requests: Record<Baseline, Record<string, unknown>> = {
      get: { url: `${url}/feed` },
      empty: { url: `${url}/empty` },
      search: { url: `${url}/search` },
      post: { url: `${url}/write`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"body":"x"}' },
    };
    const results: Partial<Record<Baseline, Result>> = {};
    for (const [kind, opts] of Object.entries(requests) as Array<[Baseline, Record<string, unknown>]>) {
      if (needed.has(kind)) results[kind] = await run(opts, child.pid);
    }
    return results;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Compiles a checkout's server as `npm run build` does, so what runs is never a stale build. */
function build(root: string): void {
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) throw new Error(`building ${root} failed`);
}

async function seed(root: string, databaseUrl: string, dir: string): Promise<Seeded> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'seed.ts'), root, databaseUrl, dir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`seeding with ${root} failed (${code})`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as Seeded;
}

/**
 * One scenario, after a second of the same load that is not counted: the first
 * second of a fresh process is compilation and cold caches (a third of the
 * rate or less), which would weigh on every short run, baseline included.
 */
async function run(opts: Record<string, unknown>, pid: number | undefined): Promise<Result> {
  await autocannon({ connections: CONNECTIONS, ...opts, duration: WARM_UP_SECONDS } as autocannon.Options);
  const cpuBefore = cpuMicros(pid);
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts } as autocannon.Options);
  const cpuAfter = cpuMicros(pid);
  const cpuUs = cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0 ? (cpuAfter - cpuBefore) / result.requests.total : undefined;
  return { cpuUs, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/**
 * A process's CPU time so far (user + system), in microseconds, from Linux's
 * /proc. Requests per second on a small machine also measure how the load
 * generator and the database share the cores; CPU per request is the server's
 * own cost, and much steadier from run to run.
 */
function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 per second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** An `atrium serve` of the checkout at `root`, on the database, once it listens. */
async function startNode(root: string, databaseUrl: string, dir: string, extraEnv: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  // ATRIUM_BENCH_CPU_PROF=<dir>: each server writes a V8 CPU profile there when it stops (open it in Chrome's DevTools).
  const profile = process.env.ATRIUM_BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', resolve(process.env.ATRIUM_BENCH_CPU_PROF)] : [];
  // Every server records its statements on request (bench/statement-trace.mjs), whatever its checkout.
  const trace = ['--import', join(ROOT, 'bench', 'statement-trace.mjs')];
  const child = spawn(process.execPath, [...profile, ...trace, join(root, 'bin', 'atrium.js'), 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      // Both checkouts run their fresh build, as `npm start` does in production
      // (the development loader costs a quarter of a tail poll on its own).
      ATRIUM_CLI_SOURCES: '0',
      ATRIUM_DATABASE_URL: databaseUrl,
      ATRIUM_DATA_DIR: dir,
      ATRIUM_PORT: String(port),
      ATRIUM_HOST: '127.0.0.1',
      ATRIUM_LOG_LEVEL: 'warn',
      ATRIUM_BASE_URL: `http://127.0.0.1:${port}`,
      // The webhook scenario's receiver listens on loopback.
      ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The service's own line: an embedded credential gateway announces itself first.
  await waitForLine(child, /^Atrium is listening/m);
  return { url: `http://127.0.0.1:${port}`, child };
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

/** Sends SIGUSR2 (bench/statement-trace.mjs switches its recording) and waits for the acknowledgement. */
function signalled(child: ChildProcess, pattern: RegExp): Promise<void> {
  const acknowledged = waitForLine(child, pattern);
  child.kill('SIGUSR2');
  return acknowledged;
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

/**
 * An OAuth access token for `<base>/v0`, obtained as a client would: register,
 * authorize with PKCE, consent with `session` for `actingMember`, exchange the code.
 * Undefined for a checkout that has no authorization server.
 */
async function oauthAccessToken(base: string, session: string, actingMember: string): Promise<string | undefined> {
  const redirect = 'http://127.0.0.1:9/callback';
  const registered = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [redirect] }) });
  if (registered.status !== 201) return undefined;
  const { client_id } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({ response_type: 'code', client_id, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256', scope: 'read write', resource: `${base}/v0` });
  const authorized = await fetch(`${base}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
  const request = new URL(authorized.headers.get('location')!).searchParams.get('request');
  const approved = await fetch(`${base}/v0/oauth-authorization-requests/${request}/approve`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ acting_member: actingMember, scope: 'read write', spaces: null }),
  });
  const code = new URL(((await approved.json()) as { redirect_to: string }).redirect_to).searchParams.get('code')!;
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id, redirect_uri: redirect });
  const token = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  return ((await token.json()) as { access_token: string }).access_token;
}
