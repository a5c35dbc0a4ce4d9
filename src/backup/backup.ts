import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { Config } from '../config.js';
import { gatewayStoreUrl } from '../gateway/config.js';
import { writeArchive, type ArchivedFile, type Manifest } from './archive.js';

/** Files of the data directory that are not kept: the databases (copied as snapshots instead) and notes of running processes. */
const NOT_KEPT = [/^atrium\.db(-wal|-shm|-journal)?$/, /^gateway\.db(-wal|-shm|-journal)?$/, /^server\.json$/, /^gateway\.json$/, /\.partial$/, /^\.atrium-/];

/**
 * `atrium admin backup --to FILE` (docs/operations.md, "Backup and restore"):
 * a consistent copy of a serving host, taken while it takes writes.
 *
 * - SQLite databases (the host's, and the embedded gateway's ledger) are
 *   copied with SQLite's online backup API. The database is in WAL mode, where
 *   a reader never blocks a writer; the copy is finished in one read
 *   transaction, a snapshot as of its start. (Copied a few pages per step, it
 *   would start over whenever another process wrote between two steps, and
 *   never end under steady writes.)
 * - The data directory's other files: the webhook sealing key (without it the
 *   stored signing keys cannot be opened) and the outbox.
 * - On PostgreSQL the database is pg_dump's to copy; the archive holds the
 *   files beside it, and notes the newest event then.
 */
export async function takeBackup(config: Config, to: string, say: (line: string) => void): Promise<Manifest> {
  const target = resolve(to);
  if (existsSync(target)) throw new Error(`${target} exists already; a backup never overwrites a file`);
  const dataDir = resolve(config.dataDir);
  const staging = mkdtempSync(join(dirname(target), '.atrium-backup-'));
  try {
    const files: ArchivedFile[] = [];
    let eventCursor: number | null;
    let migration: string | null;
    if (config.databaseUrl.startsWith('sqlite:')) {
      const copy = join(staging, 'atrium.db');
      say(`Copying the database ${resolve(config.databaseUrl.slice('sqlite:'.length))}…`);
      await snapshotSqlite(config.databaseUrl.slice('sqlite:'.length), copy);
      ({ eventCursor, migration } = describeSqlite(copy));
      files.push({ path: 'atrium.db', source: copy });
    } else {
      ({ eventCursor, migration } = await describePostgres(config.databaseUrl));
      say(`The database is PostgreSQL: take it with pg_dump (docs/operations.md); its newest event now is ${eventCursor ?? 'none'}.`);
    }
    const ledger = gatewayStoreUrl(config.dataDir);
    if (ledger.startsWith('sqlite:') && existsSync(ledger.slice('sqlite:'.length))) {
      const copy = join(staging, 'gateway.db');
      say(`Copying the gateway's ledger ${ledger.slice('sqlite:'.length)}…`);
      await snapshotSqlite(ledger.slice('sqlite:'.length), copy);
      files.push({ path: 'gateway.db', source: copy });
    }
    if (existsSync(dataDir)) {
      for (const file of dataFiles(dataDir, [target, staging])) files.push({ path: `data/${relative(dataDir, file).split(sep).join('/')}`, source: file });
    }
    return await writeArchive(target, files, {
      created_ts: new Date().toISOString(),
      database: config.databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres',
      base_url: config.baseUrl,
      event_cursor: eventCursor,
      migration,
    }, say);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function snapshotSqlite(path: string, into: string): Promise<void> {
  const source = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    // The first step takes a hundred pages; the callback's answer is the next step's size: everything left.
    await source.backup(into, { progress: ({ remainingPages }) => Math.max(remainingPages, 1) });
  } finally {
    source.close();
  }
}

function describeSqlite(path: string): { eventCursor: number | null; migration: string | null } {
  const copy = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    const events = copy.prepare('select max(cursor) as cursor from events').get() as { cursor: number | null };
    const newest = copy.prepare('select max(name) as name from kysely_migration').get() as { name: string | null };
    return { eventCursor: events.cursor, migration: newest.name };
  } finally {
    copy.close();
  }
}

async function describePostgres(url: string): Promise<{ eventCursor: number | null; migration: string | null }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const events = await client.query<{ cursor: string | null }>('select max(cursor) as cursor from events');
    const newest = await client.query<{ name: string | null }>('select max(name) as name from kysely_migration');
    return { eventCursor: events.rows[0]?.cursor == null ? null : Number(events.rows[0].cursor), migration: newest.rows[0]?.name ?? null };
  } finally {
    await client.end();
  }
}

/** Every regular file under the data directory that a restored host needs, in a stable order. */
function dataFiles(dir: string, skip: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (skip.some((s) => path === s || path.startsWith(`${s}${sep}`)) || NOT_KEPT.some((re) => re.test(basename(path)))) continue;
    if (entry.isDirectory()) out.push(...dataFiles(path, skip));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
