// The search scenarios of `npm run bench` (ATRIUM_BENCH_ONLY=search): a database of
// its own seeded with a million messages (bench/search-seed.ts), then GET /v0/search
// with three queries as three callers, the sixteen-writer post rate with the index
// kept and with it off, and the index's size.
//
// The index's cost on writes is measured with ATRIUM_SEARCH_INDEX=off rather than
// against a checkout without search (ATRIUM_BENCH_COMPARE): the same build on the
// same million messages, the only difference being the index writes themselves.
// A checkout from before search would post into a database without the tables,
// and differ in everything else that changed since. The node with the index on
// posts first: a node started with it on after one with it off would walk the
// other's posts in the background (its backfill) while being measured.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { CALLERS, QUERIES, type Caller, type SearchSeed } from './search-queries.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
/**
 * Connections each search scenario runs at (ATRIUM_BENCH_SEARCH_CONNECTIONS, a
 * list): one shows a search's own latency, four a few people searching at once.
 */
const CONNECTIONS = (process.env.ATRIUM_BENCH_SEARCH_CONNECTIONS ?? '1,4').split(',').map(Number);
const WRITERS = 16;

/** What bench/run.ts measures a scenario as. */
export interface Measured {
  cpuUs: number | undefined;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface SearchBenchDeps {
  /** Starts an `atrium serve` of `root` on the database; stopped by `stop`. */
  startNode(databaseUrl: string, env: Record<string, string>): Promise<{ url: string; pid: number | undefined; stop(): Promise<void> }>;
  /** One autocannon scenario against the node whose process is `pid`. */
  measure(opts: Record<string, unknown>, pid: number | undefined): Promise<Measured>;
  wanted(name: string): boolean;
}

/** Who asks: no credential, the member's key, the Owner's session. */
const tokens: Record<Caller, (seed: SearchSeed) => string | undefined> = {
  anonymous: () => undefined,
  member: (seed) => seed.searcher,
  'host-wide Owner': (seed) => seed.session,
};

const searchName = (query: string, caller: string, connections: number) => `search, ${query} (${caller}), ${connections} connection${connections === 1 ? '' : 's'}`;
const writeName = (on: boolean) => `search index ${on ? 'on' : 'off'}: post a message, ${WRITERS} writers`;

/** Every scenario of the group, for ATRIUM_BENCH_ONLY. */
export const SEARCH_SCENARIOS: string[] = [
  ...Object.keys(QUERIES).flatMap((query) => CALLERS.flatMap((caller) => CONNECTIONS.map((connections) => searchName(query, caller, connections)))),
  writeName(true),
  writeName(false),
];

export interface SearchOutcome {
  rows: Array<{ name: string; baseline: 'search' | 'post'; result: Measured }>;
  /** A two-word page as the anonymous caller gets it: the bare-Fastify baseline serves the same bytes. */
  page: Buffer;
  /** What to print under the table: the data, what each query found, the load, the index's size. */
  notes: string[];
}

/** Undefined for a checkout without the search index. */
export async function searchBench(root: string, databaseUrl: string, dir: string, deps: SearchBenchDeps): Promise<SearchOutcome | undefined> {
  if (!existsSync(join(root, 'src', 'search', 'index-writes.ts'))) return undefined;
  const seed = await seedSearch(root, databaseUrl, dir);
  // ATRIUM_BENCH_SEARCH_PLANS=1: the plans of the statements each search runs, on the data just seeded.
  if (process.env.ATRIUM_BENCH_SEARCH_PLANS === '1') await child(root, 'search-plans.ts', [root, databaseUrl, JSON.stringify(seed)], 'inherit');
  const notes: string[] = [];
  const rows: SearchOutcome['rows'] = [];
  const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
  const { counts, size } = seed;
  const total = size.documents + size.documentIndexes + size.terms;
  notes.push(
    `seeded ${counts.messages} messages, ${counts.tasks} tasks, ${counts.resources} Resources in 200 Spaces in ${seed.seconds} s`,
    `index: ${mib(total)} for ${counts.documents} documents = ${mib((total / counts.messages) * 1_000_000)} per million messages ` +
      `(rows ${mib(size.documents)}, their indexes ${mib(size.documentIndexes)}, terms ${mib(size.terms)}); the messages table with its indexes: ${mib(size.messagesWithIndexes)}`,
  );

  const env = { ATRIUM_SEARCH_ANONYMOUS_RATE_LIMIT: '100000000' };
  let node = await deps.startNode(databaseUrl, env);
  let page: Buffer | undefined;
  try {
    for (const [queryName, query] of Object.entries(QUERIES)) {
      const q = query(seed);
      for (const caller of CALLERS) {
        const names = CONNECTIONS.map((connections) => ({ connections, name: searchName(queryName, caller, connections) })).filter(({ name }) => deps.wanted(name));
        if (names.length === 0) continue;
        const token = tokens[caller](seed);
        const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
        const url = `${node.url}/v0/search?q=${encodeURIComponent(q)}`;
        const probe = await fetch(url, { headers });
        const body = Buffer.from(await probe.arrayBuffer());
        if (probe.status !== 200) throw new Error(`${names[0]!.name} answered ${probe.status}: ${body.toString()}`);
        const answer = JSON.parse(body.toString()) as { results: unknown[]; next_cursor: string | null };
        if (queryName === 'two words' && caller === 'anonymous') page = body;
        const loads: string[] = [];
        for (const { connections, name } of names) {
          loads.push(loadavg()[0]!.toFixed(1));
          rows.push({ name, baseline: 'search', result: await deps.measure({ url, headers, connections }, node.pid) });
        }
        notes.push(`${queryName} (${caller}): q=${q}; a page of ${answer.results.length}${answer.next_cursor ? ' and more' : ''}; load average ${loads.join(', ')}`);
      }
    }
    notes.push(`from:${seed.from} wrote ${seed.fromMessages} of the messages; the member is admitted to the invite Spaces ${seed.searcherSpaces.join(', ')}`);
    page ??= Buffer.from(await (await fetch(`${node.url}/v0/search?q=garden%20trellis`)).arrayBuffer());

    for (const on of [true, false]) {
      const name = writeName(on);
      if (!deps.wanted(name)) continue;
      if (!on) {
        await node.stop();
        node = await deps.startNode(databaseUrl, { ...env, ATRIUM_SEARCH_INDEX: 'off' });
      }
      let turn = 0;
      const load = loadavg()[0]!.toFixed(1);
      const result = await deps.measure(
        {
          url: `${node.url}/v0/spaces/${seed.postSpace}/channels/general/messages`,
          method: 'POST',
          connections: WRITERS,
          headers: { 'content-type': 'application/json' },
          requests: [
            {
              setupRequest: (req: Record<string, unknown>) => {
                turn += 1;
                const headers = { ...(req.headers as Record<string, string>), authorization: `Bearer ${seed.writers[turn % seed.writers.length]}` };
                return { ...req, headers, body: JSON.stringify({ body: 'A short status note, nothing to parse for long.' }) };
              },
            },
          ],
        },
        node.pid,
      );
      rows.push({ name, baseline: 'post', result });
      notes.push(`${name}: load average ${load}`);
    }
  } finally {
    await node.stop();
  }
  return { rows, page, notes };
}

async function seedSearch(root: string, databaseUrl: string, dir: string): Promise<SearchSeed> {
  const out = await child(root, 'search-seed.ts', [root, databaseUrl, dir], 'pipe');
  return JSON.parse(out.trim().split('\n').at(-1)!) as SearchSeed;
}

/** Runs one of this folder's scripts in the checkout; answers its output when piped. */
async function child(root: string, script: string, args: string[], stdout: 'pipe' | 'inherit'): Promise<string> {
  const spawned = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', script), ...args], { cwd: root, stdio: ['ignore', stdout, 'inherit'] });
  let out = '';
  spawned.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((r) => spawned.once('exit', r));
  if (code !== 0) throw new Error(`${script} with ${root} failed (${code})`);
  return out;
}
