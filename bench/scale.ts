// The scale scenarios of `npm run bench` (ATRIUM_BENCH_ONLY=scale): whether a
// request costs the same when the data behind it is a thousand times larger. A
// database of its own is grown through three sizes, 10³, 10⁵ and 10⁶ events in
// one Space's log (ATRIUM_BENCH_SCALE_SIZES, a list), by bench/scale-seed.ts:
// a Space of 10,000 members, and a member whose inbox holds 100,000 mentions,
// all older than the Space's log. At each size a fresh `atrium serve` reads the
// Space's feed (its newest page, and pages from the middle), the member's inbox
// (its newest page, and a page from the middle), the member list and a Resource,
// then sixteen writers post; the notes give requests/s and the server's CPU per
// request at each size, and the ratio of the largest size's to the smallest's.
//
// One database grows rather than three being seeded: each size adds to what the
// smaller one held, as a host's data grows. The posts of a smaller size's run
// stay in the log (a few thousand events, against sizes a hundred times apart).
// Middle pages are read at 500 cursors by 17 members in turn, so a node's kept
// pages (docs/events.md, "Kept pages") hold few of them and the page is read
// from the database, as for readers spread through a long history.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import type { Measured } from './search.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const SIZES = (process.env.ATRIUM_BENCH_SCALE_SIZES ?? '1000,100000,1000000').split(',').map(Number);
const WRITERS = 16;
/** Distinct `since` values the middle pages are read at. */
const MIDDLE_CURSORS = 500;

export interface ScaleBenchDeps {
  /** Starts an `atrium serve` of the checkout on the database; resolves once it listens. */
  startNode(databaseUrl: string, dir: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }>;
  /** One autocannon scenario against the node whose process is `pid`. */
  measure(opts: Record<string, unknown>, pid: number | undefined): Promise<Measured>;
  wanted(name: string): boolean;
}

const SCENARIOS = {
  feedNewest: 'Space feed, newest 100 (member key)',
  feedMiddle: 'Space feed, a page of 100 from the middle (member keys)',
  inboxNewest: 'inbox, newest 100 (member key)',
  inboxMiddle: 'inbox, a page of 100 from the middle (member key)',
  members: 'member list, 10,000 members (anonymous)',
  resource: 'read a Resource (anonymous)',
  post: `post a message, ${WRITERS} writers (member keys)`,
} as const;
type Scenario = keyof typeof SCENARIOS;

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
/** 1000 → 10³; a size that is no power of ten as it is. */
function sizeLabel(size: number): string {
  const exponent = Math.log10(size);
  return Number.isInteger(exponent) ? `10${[...String(exponent)].map((d) => SUPERSCRIPT[Number(d)]).join('')}` : String(size);
}
const scaleName = (scenario: Scenario, size: number) => `scale, ${sizeLabel(size)} events: ${SCENARIOS[scenario]}`;

/** Every scenario of the group, for ATRIUM_BENCH_ONLY. */
export const SCALE_SCENARIOS: string[] = SIZES.flatMap((size) => (Object.keys(SCENARIOS) as Scenario[]).map((scenario) => scaleName(scenario, size)));

interface ScaleSeed {
  /** Present after the first size only. */
  reader?: string;
  writers?: string[];
  resource?: string;
  space: string;
  spaceEvents: number;
  events: number;
  feedMiddle: number;
  inboxMiddle: number;
  seconds: number;
}

export interface ScaleOutcome {
  rows: Array<{ name: string; baseline: 'get' | 'post'; result: Measured }>;
  /** A newest feed page as the member gets it: the bare-Fastify baseline serves the same bytes. */
  page: Buffer | undefined;
  /** What to print under the table: what was seeded, and each scenario's cost at each size. */
  notes: string[];
}

export async function scaleBench(root: string, backend: 'sqlite' | 'postgres', pgUrl: string | undefined, deps: ScaleBenchDeps): Promise<ScaleOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-bench-scale-'));
  const schema = `atrium_bench_${randomBytes(4).toString('hex')}`;
  if (backend === 'postgres') await pgQuery(pgUrl!, `create schema ${schema}`);
  const databaseUrl = backend === 'postgres' ? withSearchPath(pgUrl!, schema) : `sqlite:${join(dir, 'bench.db')}`;
  const rows: ScaleOutcome['rows'] = [];
  const notes: string[] = [];
  const costs = new Map<Scenario, Map<number, Cost>>();
  let page: Buffer | undefined;
  let credentials: Required<Pick<ScaleSeed, 'reader' | 'writers' | 'resource'>> | undefined;
  const database = backend === 'postgres' ? new DatabaseCpu(pgUrl!, `atrium-bench-${schema}`) : undefined;
  try {
    for (const size of SIZES) {
      const wantedHere = (Object.keys(SCENARIOS) as Scenario[]).filter((scenario) => deps.wanted(scaleName(scenario, size)));
      const seed = await seedScale(root, databaseUrl, dir, size);
      credentials ??= { reader: seed.reader!, writers: seed.writers!, resource: seed.resource! };
      notes.push(`${sizeLabel(size)}: ${seed.spaceEvents} events in ${seed.space}, ${seed.events} in the log, grown in ${seed.seconds} s`);
      if (wantedHere.length === 0) continue;
      // ATRIUM_BENCH_SCALE_PLANS=1: the plans of the statements the reads run, at this size.
      if (process.env.ATRIUM_BENCH_SCALE_PLANS === '1') process.stdout.write(await script(root, 'scale-plans.ts', [root, databaseUrl, JSON.stringify(seed)]));
      const { url, child } = await deps.startNode(databaseUrl, dir, database ? { PGAPPNAME: database.application } : {});
      try {
        const reader = { authorization: `Bearer ${credentials.reader}` };
        const readers = [credentials.reader, ...credentials.writers];
        let turn = 0;
        /** Each request at the next of MIDDLE_CURSORS cursors from `from`, as the next of the readers. */
        const spread = (path: (since: number) => string, from: number, keys: string[]) => [
          {
            setupRequest: (req: Record<string, unknown>) => {
              turn += 1;
              const headers = { ...(req.headers as Record<string, string>), authorization: `Bearer ${keys[turn % keys.length]}` };
              return { ...req, path: path(from + (turn % MIDDLE_CURSORS)), headers };
            },
          },
        ];
        const feed = `/v0/spaces/${seed.space}/events`;
        const requests: Record<Scenario, { baseline: 'get' | 'post'; opts: Record<string, unknown>; probe?: { path: string; events: number } }> = {
          feedNewest: { baseline: 'get', opts: { url: `${url}${feed}?newest=100`, headers: reader }, probe: { path: `${feed}?newest=100`, events: 100 } },
          feedMiddle: {
            baseline: 'get',
            opts: { url: `${url}${feed}`, requests: spread((since) => `${feed}?since=${since}&limit=100`, seed.feedMiddle, readers) },
            probe: { path: `${feed}?since=${seed.feedMiddle}&limit=100`, events: 100 },
          },
          inboxNewest: { baseline: 'get', opts: { url: `${url}/v0/me/inbox-events?newest=100`, headers: reader }, probe: { path: '/v0/me/inbox-events?newest=100', events: 100 } },
          inboxMiddle: {
            baseline: 'get',
            opts: { url: `${url}/v0/me/inbox-events`, headers: reader, requests: spread((since) => `/v0/me/inbox-events?since=${since}&limit=100`, seed.inboxMiddle, [credentials.reader]) },
            probe: { path: `/v0/me/inbox-events?since=${seed.inboxMiddle}&limit=100`, events: 100 },
          },
          // The default page, as a client asks. Two connections: a checkout that answers all 10,000 members at once
          // (before the list was paged) outlasts autocannon's timeout on a busy machine with ten in flight.
          members: { baseline: 'get', opts: { url: `${url}/v0/spaces/${seed.space}/members`, connections: 2 } },
          resource: { baseline: 'get', opts: { url: `${url}/v0/spaces/${seed.space}/resources/${credentials.resource}` } },
          post: {
            baseline: 'post',
            opts: {
              url: `${url}/v0/spaces/${seed.space}/channels/general/messages`,
              method: 'POST',
              connections: WRITERS,
              headers: { 'content-type': 'application/json' },
              requests: [
                {
                  setupRequest: (req: Record<string, unknown>) => {
                    turn += 1;
                    const headers = { ...(req.headers as Record<string, string>), authorization: `Bearer ${credentials!.writers[turn % WRITERS]}` };
                    return { ...req, headers, body: JSON.stringify({ body: 'A short status note, nothing to parse for long.' }) };
                  },
                },
              ],
            },
          },
        };
        // Reads first, so they read the log as seeded; the posts come last.
        const loads: string[] = [];
        for (const scenario of wantedHere) {
          const { baseline, opts, probe } = requests[scenario];
          if (probe) {
            const answer = await fetch(url + probe.path, { headers: reader });
            const body = Buffer.from(await answer.arrayBuffer());
            if (answer.status !== 200) throw new Error(`${scaleName(scenario, size)} answered ${answer.status}: ${body.toString()}`);
            const events = (JSON.parse(body.toString()) as { events: unknown[] }).events.length;
            if (events !== probe.events) throw new Error(`${scaleName(scenario, size)} read ${events} events, not ${probe.events}`);
            if (scenario === 'feedNewest') page ??= body;
          }
          loads.push(loadavg()[0]!.toFixed(1));
          let sent = 0;
          const counted = (req: Record<string, unknown>) => {
            sent += 1;
            return req;
          };
          const setups = ((opts.requests as Array<{ setupRequest?: (req: Record<string, unknown>) => Record<string, unknown> }> | undefined) ?? [{}]).map((r) => ({
            ...r,
            setupRequest: (req: Record<string, unknown>) => counted(r.setupRequest ? r.setupRequest(req) : req),
          }));
          const before = await database?.micros();
          const result = await deps.measure({ ...opts, requests: setups }, child.pid);
          const after = await database?.micros();
          const cost: Cost = { ...result, databaseUs: before !== undefined && after !== undefined && sent > 0 ? (after - before) / sent : undefined };
          rows.push({ name: scaleName(scenario, size), baseline, result });
          const measured = costs.get(scenario) ?? new Map<number, Cost>();
          costs.set(scenario, measured.set(size, cost));
        }
        notes.push(`  load average before each scenario: ${loads.join(', ')}`);
      } finally {
        if (child.exitCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await exited;
        }
      }
    }
  } finally {
    await database?.close();
    if (backend === 'postgres') await pgQuery(pgUrl!, `drop schema ${schema} cascade`);
    rmSync(dir, { recursive: true, force: true });
  }
  notes.push(...costTable(costs));
  return { rows, page, notes };
}

/** A scenario's measure, and on PostgreSQL the database's CPU per request (its server processes run apart from the node's). */
type Cost = Measured & { databaseUs: number | undefined };

/**
 * Requests/s and CPU µs per request at each size (the node's, plus the
 * database's on PostgreSQL), and the largest size's CPU over the smallest's.
 */
function costTable(costs: Map<Scenario, Map<number, Cost>>): string[] {
  const first = SIZES[0]!;
  const last = SIZES.at(-1)!;
  const cpu = (m: Cost | undefined) => (m?.cpuUs === undefined ? undefined : m.cpuUs + (m.databaseUs ?? 0));
  const width = Math.max(...Object.values(SCENARIOS).map((name) => name.length)) + 2;
  const lines = [
    `${'cost as the log grows: requests/s, CPU µs per request (node + database)'}`,
    `${''.padEnd(width)}${SIZES.map((size) => sizeLabel(size).padStart(26)).join('')}${`CPU ${sizeLabel(last)}/${sizeLabel(first)}`.padStart(14)}${`rate ${sizeLabel(last)}/${sizeLabel(first)}`.padStart(14)}`,
  ];
  for (const [scenario, bySize] of costs) {
    const cells = SIZES.map((size) => {
      const m = bySize.get(size);
      if (!m) return 'n/a'.padStart(26);
      const split = m.databaseUs === undefined ? '' : ` (${m.cpuUs?.toFixed(0) ?? '?'} + ${m.databaseUs.toFixed(0)})`;
      return `${m.rps.toFixed(0)}/s ${cpu(m)?.toFixed(0) ?? '?'}${split}`.padStart(26);
    });
    const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(b / a).toFixed(2)}x` : 'n/a');
    lines.push(
      `${SCENARIOS[scenario].padEnd(width)}${cells.join('')}${ratio(cpu(bySize.get(first)), cpu(bySize.get(last))).padStart(14)}${ratio(bySize.get(first)?.rps, bySize.get(last)?.rps).padStart(14)}`,
    );
  }
  return lines;
}

/**
 * The CPU time of the PostgreSQL server processes serving the node's
 * connections, found by the application name the node connects with
 * (PGAPPNAME), read from Linux's /proc as the node's own is. Each process's
 * last reading is kept, so one that ends between readings still counts for
 * what it had used by the first.
 */
class DatabaseCpu {
  private readonly client: pg.Client;
  private connected: Promise<unknown> | undefined;
  private readonly seen = new Map<number, number>();

  constructor(
    url: string,
    readonly application: string,
  ) {
    this.client = new pg.Client({ connectionString: url });
  }

  async micros(): Promise<number | undefined> {
    this.connected ??= this.client.connect();
    await this.connected;
    const { rows } = await this.client.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [this.application]);
    for (const { pid } of rows) {
      try {
        // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 per second).
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        this.seen.set(pid, (Number(fields[11]) + Number(fields[12])) * 10_000);
      } catch {
        // Ended since the query: its last reading stands.
      }
    }
    return rows.length === 0 ? undefined : [...this.seen.values()].reduce((sum, us) => sum + us, 0);
  }

  async close(): Promise<void> {
    if (this.connected) await this.client.end();
  }
}

async function seedScale(root: string, databaseUrl: string, dir: string, size: number): Promise<ScaleSeed> {
  const out = await script(root, 'scale-seed.ts', [root, databaseUrl, dir, String(size)]);
  return JSON.parse(out.trim().split('\n').at(-1)!) as ScaleSeed;
}

/** Runs one of this folder's scripts in the checkout; answers its output. */
async function script(root: string, name: string, args: string[]): Promise<string> {
  const spawned = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', name), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  spawned.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((r) => spawned.once('exit', r));
  if (code !== 0) throw new Error(`${name} with ${root} failed (${code})`);
  return out;
}

function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

async function pgQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
