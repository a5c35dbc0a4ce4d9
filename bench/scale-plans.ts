// The plans of the statements the scale group's reads run, on its seeded
// database: `npm run bench` runs this when ATRIUM_BENCH_SCALE_PLANS=1, after
// each size is seeded and before its scenarios. The Space feed's and the
// inbox's pages (newest, and from the middle) through the checkout's own
// readFeed() and readInbox(), and the member list through listMemberships(),
// with every statement captured as it runs and explained: EXPLAIN QUERY PLAN
// on SQLite, EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL.
//
//   node --import tsx bench/scale-plans.ts <checkout> <database URL> <seed JSON>
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';

type Feed = typeof import('../src/events/feed.js');
type Inbox = typeof import('../src/inbox/service.js');
type Admission = typeof import('../src/spaces/admission.js');
type Members = typeof import('../src/members/service.js');
type Tail = typeof import('../src/events/tail.js');
type Actor = import('../src/identity/actor.js').Actor;
type DatabaseSchema = import('../src/storage/schema.js').DatabaseSchema;
type EventQuery = import('../src/events/feed.js').EventQuery;
type WaitAllowance = import('../src/operations/waits.js').WaitAllowance;

const [, , root, databaseUrl, seedJson] = process.argv;
const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(root!, 'src', path)).href) as Promise<T>;
const { readFeed } = await load<Feed>('events/feed.ts');
const { readInbox } = await load<Inbox>('inbox/service.ts');
const { listMemberships } = await load<Admission>('spaces/admission.ts');
const { getMember } = await load<Members>('members/service.ts');
const { EventTail, feedKeys } = await load<Tail>('events/tail.ts');
const seed = JSON.parse(seedJson!) as { space: string; feedMiddle: number; inboxMiddle: number };

const statements: Array<{ sql: string; parameters: readonly unknown[]; ms: number }> = [];
const log = (event: LogEvent): void => {
  statements.push({ sql: event.query.sql, parameters: event.query.parameters, ms: event.queryDurationMillis });
};
const sqlite = databaseUrl!.startsWith('sqlite:') ? new BetterSqlite3(databaseUrl!.slice('sqlite:'.length), { readonly: true }) : undefined;
const kysely = new Kysely<DatabaseSchema>({
  dialect: sqlite
    ? new SqliteDialect({ database: sqlite })
    : new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 1, types: { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)) } as pg.CustomTypesConfig }) }),
  log,
});
const store = { kysely, dialect: sqlite ? ('sqlite' as const) : ('postgres' as const) };
const tail = new EventTail(kysely);
await tail.start();
const waits: WaitAllowance = { hold: () => undefined, retryAfterSeconds: 1 };
const reader: Actor = { kind: 'member', member: await getMember(kysely, 'scale-reader'), credential: { type: 'key', id: 'plans' } };
const spaceFeed = { key: feedKeys.space(seed.space), select: async () => (q: EventQuery) => q.where('events.space', '=', seed.space), keepsPages: false };

const reads: Record<string, () => Promise<unknown>> = {
  'Space feed, newest 100': () =>
    readFeed(store, tail, spaceFeed, { since: 0, limit: 100, newest: 100 }, reader, waits),
  'Space feed, a page from the middle': () =>
    readFeed(store, tail, spaceFeed, { since: seed.feedMiddle, limit: 100 }, reader, waits),
  'inbox, newest 100': () => readInbox(store, tail, reader, { since: 0, limit: 100, newest: 100 }, waits),
  'inbox, a page from the middle': () => readInbox(store, tail, reader, { since: seed.inboxMiddle, limit: 100 }, waits),
  'member list': () => listMemberships(kysely, { kind: 'anonymous' }, seed.space),
};

try {
  for (const [name, read] of Object.entries(reads)) {
    // Once to warm the caches, once to look at.
    await read();
    statements.length = 0;
    const started = performance.now();
    await read();
    console.log(`\n${name}: ${(performance.now() - started).toFixed(1)} ms`);
    for (const statement of [...statements]) {
      console.log(`  ${statement.ms.toFixed(1)} ms: ${statement.sql.length > 600 ? `${statement.sql.slice(0, 600)}…` : statement.sql}`);
      if (sqlite) {
        const plan = sqlite.prepare(`explain query plan ${statement.sql}`).all(...(statement.parameters as unknown[])) as Array<{ id: number; parent: number; detail: string }>;
        const depth = new Map<number, number>([[0, 0]]);
        for (const step of plan) {
          depth.set(step.id, (depth.get(step.parent) ?? 0) + 1);
          console.log(`    ${'  '.repeat(depth.get(step.id)! - 1)}${step.detail}`);
        }
      } else {
        const plan = await kysely.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, buffers) ${statement.sql}`, [...statement.parameters]));
        for (const row of plan.rows) console.log(`    ${row['QUERY PLAN']}`);
      }
    }
  }
} finally {
  await kysely.destroy();
}
