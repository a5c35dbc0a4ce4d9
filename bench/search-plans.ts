// The plans of the statements a search runs, on the search benchmark's seeded
// database: `npm run bench` runs this when ATRIUM_BENCH_SEARCH_PLANS=1, after
// seeding and before the scenarios. Each query of the group, as each caller,
// through the checkout's own search(), with every statement captured as it
// runs; the ones that read the index are explained: EXPLAIN QUERY PLAN on
// SQLite, EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL.
//
//   node --import tsx bench/search-plans.ts <checkout> <database URL> <seed JSON>
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { QUERIES, type Caller, type SearchSeed } from './search-queries.js';

type Service = typeof import('../src/search/service.js');
type Members = typeof import('../src/members/service.js');
type Actor = import('../src/identity/actor.js').Actor;
type Database = import('../src/storage/database.js').Database;
type DatabaseSchema = import('../src/storage/schema.js').DatabaseSchema;

const [, , root, databaseUrl, seedJson] = process.argv;
const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(root!, 'src', path)).href) as Promise<T>;
const { search } = await load<Service>('search/service.ts');
const { getMember } = await load<Members>('members/service.ts');
const seed = JSON.parse(seedJson!) as SearchSeed;

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
// search() reads through these two alone.
const db = { kysely, dialect: sqlite ? 'sqlite' : 'postgres' } as unknown as Database;
const actor = async (handle: string, type: 'key' | 'session'): Promise<Actor> => ({ kind: 'member', member: await getMember(kysely, handle), credential: { type, id: 'plans' } });
const actors: Record<Caller, Actor> = {
  anonymous: { kind: 'anonymous' },
  member: await actor('bench-searcher', 'key'),
  'host-wide Owner': await actor('bench-owner', 'session'),
};

try {
  for (const [queryName, query] of Object.entries(QUERIES)) {
    for (const [callerName, caller] of Object.entries(actors)) {
      const q = query(seed);
      // Once to warm the caches, once to look at.
      await search(db, caller, { q });
      statements.length = 0;
      const started = performance.now();
      const page = await search(db, caller, { q });
      console.log(`\n${queryName} (${callerName}): q=${q}; ${page.results.length} results in ${(performance.now() - started).toFixed(1)} ms`);
      for (const statement of [...statements]) {
        console.log(`  ${statement.ms.toFixed(1)} ms: ${statement.sql.length > 300 ? `${statement.sql.slice(0, 300)}…` : statement.sql}`);
        if (!statement.sql.includes('search_documents')) continue;
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
  }
} finally {
  await kysely.destroy();
}
