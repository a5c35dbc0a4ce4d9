// What a message, an event and a Resource version cost the database
// (docs/operations.md, "Storage"): posts N messages of 200 characters, then
// adds N/4 versions of about 1 KiB of Markdown to one Resource, through the
// real API into a fresh database, and reports the growth of every table and
// index per record. SQLite always; PostgreSQL too when ATRIUM_TEST_DATABASE_URL
// is set (its own schema, dropped afterwards).
// `npx tsx scripts/measure-storage.mts`; N=2000 by default.
import Database from 'better-sqlite3';
import pg from 'pg';
import { backends, startServer, type TestServer } from '../test/support/server.js';
import { activeSpace } from '../test/support/spaces.js';

const N = Number(process.env.N ?? 2000);

/** Bytes per table and index: SQLite's dbstat pages, PostgreSQL's relation sizes (TOAST included) after a VACUUM. */
async function sizes(server: TestServer): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (server.backend === 'sqlite') {
    const db = new Database(server.database.url.replace(/^sqlite:/, ''));
    db.pragma('wal_checkpoint(TRUNCATE)');
    for (const row of db.prepare('select name, sum(pgsize) as bytes from dbstat group by name').all() as Array<{ name: string; bytes: number }>) {
      out.set(row.name, row.bytes);
    }
    db.close();
    return out;
  }
  const client = new pg.Client({ connectionString: process.env.ATRIUM_TEST_DATABASE_URL });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind = 'r'`,
      [server.database.schema],
    );
    // Dead row versions and unset visibility bits would be counted otherwise.
    for (const { name } of tables.rows) await client.query(`vacuum ${server.database.schema}.${name}`);
    const rows = await client.query<{ name: string; bytes: string }>(
      `select c.relname as name, pg_total_relation_size(c.oid) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind = 'r'`,
      [server.database.schema],
    );
    for (const row of rows.rows) out.set(row.name, Number(row.bytes));
  } finally {
    await client.end();
  }
  return out;
}

for (const backend of backends()) {
  const server = await startServer(backend);
  try {
    const ana = await server.human('ana');
    await activeSpace(server, ana.session, 'plaza');
    await server.request('POST', '/v0/spaces/plaza/join', { token: ana.session });
    const post = async (body: string) => {
      const res = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: ana.session, body: { body } });
      if (res.status !== 201) throw new Error(`post answered ${res.status}`);
    };
    // A few first, so that pages every table allocates once are not counted against the messages.
    for (let i = 0; i < 50; i++) await post(`warming up ${i} `.padEnd(200, '.'));
    const report = (what: string, before: Map<string, number>, after: Map<string, number>, count: number, only?: RegExp) => {
      let total = 0;
      const parts: string[] = [];
      for (const [name, bytes] of [...after].sort((a, b) => b[1] - a[1])) {
        if (only && !only.test(name)) continue;
        const grown = bytes - (before.get(name) ?? 0);
        total += grown;
        if (grown !== 0) parts.push(`${name} ${Math.round(grown / count)}`);
      }
      console.log(`${backend}: ${Math.round(total / count)} bytes per ${what} (${parts.join(', ')})`);
    };
    const before = await sizes(server);
    for (let i = 0; i < N; i++) await post(`message ${i} `.padEnd(200, 'x'));
    const posted = await sizes(server);
    report('200-character message', before, posted, N);
    // An event is its row and its feed index rows (subjects, audience), with their indexes.
    report('event (message_posted)', before, posted, N, /event/);

    const created = await server.request('POST', '/v0/spaces/plaza/resources', { token: ana.session, body: { name: 'Notes', content: '# Notes\n' } });
    if (created.status !== 201) throw new Error(`create answered ${created.status}`);
    const versions = Math.max(1, Math.floor(N / 4));
    const start = await sizes(server);
    for (let i = 0; i < versions; i++) {
      const content = `# Notes, version ${i}\n\n${`Paragraph ${i}: what changed and why. `.repeat(28)}`.slice(0, 1024);
      const res = await server.request('POST', `/v0/spaces/plaza/resources/${created.body.id}/versions`, { token: ana.session, body: { content } });
      if (res.status !== 201) throw new Error(`version answered ${res.status}`);
    }
    report('1 KiB Resource version (its blob included)', start, await sizes(server), versions);
  } finally {
    await server.stop();
  }
}
process.exit(0);
