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

const ROOT = resolve(new URL('..', import.meta.url).pathname);
/** Connections per search scenario: a few people searching at once, not a crowd. */
const CONNECTIONS = Number(process.env.ATRIUM_BENCH_SEARCH_CONNECTIONS ?? 4);
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

/** What bench/search-seed.ts prints. */
interface SearchSeed {
  session: string;
  searcher: string;
  writers: string[];
  postSpace: string;
  from: string;
  fromMessages: number;
  after: string;
  searcherSpaces: string[];
  counts: { messages: number; tasks: number; resources: number; documents: number };
  size: { documents: number; documentIndexes: number; terms: number; messagesWithIndexes: number };
  seconds: number;
}

const QUERIES = {
  'two words': () => 'garden trellis',
  operators: (seed: SearchSeed) => `garden "south wall" -blocked from:${seed.from} kind:message after:${seed.after}`,
  'rare word': () => 'quokka',
} as const;

const CALLERS = {
  anonymous: () => undefined,
  member: (seed: SearchSeed) => seed.searcher,
  'host-wide Owner': (seed: SearchSeed) => seed.session,
} as const;

const searchName = (query: string, caller: string) => `search, ${query} (${caller})`;
const writeName = (on: boolean) => `search index ${on ? 'on' : 'off'}: post a message, ${WRITERS} writers`;

/** Every scenario of the group, for ATRIUM_BENCH_ONLY. */
export const SEARCH_SCENARIOS: string[] = [
  ...Object.keys(QUERIES).flatMap((query) => Object.keys(CALLERS).map((caller) => searchName(query, caller))),
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
      for (const [callerName, caller] of Object.entries(CALLERS)) {
        const name = searchName(queryName, callerName);
        if (!deps.wanted(name)) continue;
        const token = caller(seed);
        const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
        const url = `${node.url}/v0/search?q=${encodeURIComponent(q)}`;
        const probe = await fetch(url, { headers });
        const body = Buffer.from(await probe.arrayBuffer());
        if (probe.status !== 200) throw new Error(`${name} answered ${probe.status}: ${body.toString()}`);
        const answer = JSON.parse(body.toString()) as { results: unknown[]; next_cursor: string | null };
        if (queryName === 'two words' && callerName === 'anonymous') page = body;
        const load = loadavg()[0]!.toFixed(1);
        rows.push({ name, baseline: 'search', result: await deps.measure({ url, headers, connections: CONNECTIONS }, node.pid) });
        notes.push(`${name}: q=${q}; a page of ${answer.results.length}${answer.next_cursor ? ' and more' : ''}; load average ${load}`);
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
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'search-seed.ts'), root, databaseUrl, dir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`seeding search with ${root} failed (${code})`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as SearchSeed;
}
