// The bare-SQL baseline of a write scenario: the statements a server sent to
// its database while it answered a known number of requests (recorded by
// bench/statement-trace.mjs), sent again through the same drivers with no
// service in between, on a copy of the database as it was just before the
// recording. The service's rate over this rate is how close it comes to the
// limit its own SQL sets.
//
// Statements are grouped as the server grouped them: each transaction (begin
// to commit or rollback on one connection) is one unit, a statement outside
// any is a unit of its own, and units are replayed in the order they began.
// PostgreSQL replays with the scenario's concurrency (each client takes the
// next unit); SQLite on one connection, as the server does. The recorded
// parameters are replayed as they were: ids the server got back (a message's
// id, say) are the recorded ones, which on one SQLite connection are exactly
// the ids the replay creates, and on PostgreSQL nearly so.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

interface Statement {
  c: string;
  q: string;
  p: unknown[];
  r?: boolean;
}

export interface Replayed {
  /** The traced requests over the replay's wall time. */
  rps: number;
  statements: number;
  units: number;
  /** Units that failed and were rolled back (a replayed id that collided, say): their cost is still counted. */
  failed: number;
}

/** The trace's statements, grouped into units as the server ran them. */
export function readUnits(file: string): Statement[][] {
  const statements = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line, (_key, value: unknown) => (isEncodedBuffer(value) ? Buffer.from(value.$b, 'base64') : value)) as Statement);
  const units: Statement[][] = [];
  const open = new Map<string, Statement[]>();
  for (const statement of statements) {
    const verb = statement.q.trim().toLowerCase();
    const current = open.get(statement.c);
    if (current) {
      current.push(statement);
      if (verb === 'commit' || verb === 'rollback') open.delete(statement.c);
    } else if (verb === 'begin' || verb.startsWith('begin ') || verb.startsWith('start transaction')) {
      const unit = [statement];
      units.push(unit);
      open.set(statement.c, unit);
    } else {
      units.push([statement]);
    }
  }
  return units;
}

function isEncodedBuffer(value: unknown): value is { $b: string } {
  return typeof value === 'object' && value !== null && typeof (value as { $b?: unknown }).$b === 'string' && Object.keys(value).length === 1;
}

/** A copy of PostgreSQL schema `schema` as `copy`: pg_dump's text, the schema's name replaced (it is a random name, found nowhere else). */
export function copyPostgresSchema(url: string, schema: string, copy: string): void {
  const dump = spawnSync('pg_dump', ['--schema', schema, '--no-owner', '--no-privileges', '--dbname', url], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (dump.status !== 0) throw new Error(`pg_dump failed: ${dump.stderr}`);
  const restored = spawnSync('psql', ['--quiet', '--set', 'ON_ERROR_STOP=1', '--dbname', url], { input: dump.stdout.split(schema).join(copy), encoding: 'utf8', maxBuffer: 1 << 30 });
  if (restored.status !== 0) throw new Error(`restoring the copy failed: ${restored.stderr}`);
}

export function replaySqlite(path: string, units: Statement[][], requests: number): Replayed {
  const db = new BetterSqlite3(path);
  // As the server opens it (src/storage/database.ts).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  const prepared = new Map<string, BetterSqlite3.Statement>();
  let failed = 0;
  try {
    const started = performance.now();
    for (const unit of units) {
      try {
        for (const s of unit) {
          let statement = prepared.get(s.q);
          if (!statement) prepared.set(s.q, (statement = db.prepare(s.q)));
          if (statement.reader) statement.all(s.p);
          else statement.run(s.p);
        }
      } catch {
        failed += 1;
        if (db.inTransaction) db.exec('rollback');
      }
    }
    const seconds = (performance.now() - started) / 1000;
    return { rps: requests / seconds, statements: units.reduce((n, u) => n + u.length, 0), units: units.length, failed };
  } finally {
    db.close();
  }
}

export async function replayPostgres(url: string, schema: string, units: Statement[][], requests: number, concurrency: number): Promise<Replayed> {
  const clients = await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
      await client.connect();
      return client;
    }),
  );
  let next = 0;
  let failed = 0;
  try {
    const started = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        for (let at = next++; at < units.length; at = next++) {
          const unit = units[at]!;
          let inTransaction = false;
          try {
            for (const s of unit) {
              const verb = s.q.trim().toLowerCase();
              await client.query(s.q, s.p);
              if (verb === 'begin') inTransaction = true;
              if (verb === 'commit' || verb === 'rollback') inTransaction = false;
            }
          } catch {
            failed += 1;
            if (inTransaction) await client.query('rollback');
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { rps: requests / seconds, statements: units.reduce((n, u) => n + u.length, 0), units: units.length, failed };
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}
