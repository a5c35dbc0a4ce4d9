import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createPrivateSqliteFile } from './file-modes.js';

/** Kept for the life of the process: the lock lasts as long as its connection is open. */
const held: BetterSqlite3.Database[] = [];

/**
 * One SQLite database is served by one node (docs/operations.md, "One node or
 * several"): a second `atrium serve` on the same file would number events,
 * lead and sweep beside the first, each unaware of the other. So `serve` holds
 * an exclusive lock on `<database file>.lock` for as long as it runs. The lock
 * is SQLite's own (an operating system lock on the file, taken through
 * better-sqlite3): it goes with the process however the process ends, so a
 * node killed outright leaves nothing that stops the next start. PostgreSQL
 * deployments run several nodes on purpose: nothing is locked there.
 *
 * Throws, in words that say what to do, when another process holds it.
 */
export function holdSingleNodeLock(config: { databaseUrl: string; dataDir: string }): void {
  if (!config.databaseUrl.startsWith('sqlite:')) return;
  const file = config.databaseUrl.slice('sqlite:'.length);
  if (file === '' || file === ':memory:') return;
  const path = `${resolve(file)}.lock`;
  createPrivateSqliteFile(path);
  const lock = new BetterSqlite3(path);
  try {
    lock.pragma('busy_timeout = 0');
    // The journal in memory: the lock file is the only file it needs.
    lock.pragma('journal_mode = MEMORY');
    // An exclusive locking mode keeps the lock its first write takes until the connection closes.
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('begin exclusive');
    lock.exec('create table if not exists holder (pid integer not null)');
    lock.exec('delete from holder');
    lock.prepare('insert into holder (pid) values (?)').run(process.pid);
    lock.exec('commit');
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new Error(
        `another atrium serve ${runningServer(config.dataDir)}is already serving the database ${resolve(file)}: ` +
          'one SQLite database is served by one process. Stop that one first, or give this one its own ATRIUM_DATA_DIR (several nodes need PostgreSQL)',
      );
    }
    throw err;
  }
  held.push(lock);
}

/** "(pid 1234, http://localhost:8080) " from the server.json a running `serve` wrote in the data directory, when its process still runs. */
function runningServer(dataDir: string): string {
  try {
    const recorded = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')) as { pid?: unknown; base_url?: unknown };
    if (typeof recorded.pid !== 'number') return '';
    process.kill(recorded.pid, 0);
    return `(pid ${recorded.pid}${typeof recorded.base_url === 'string' ? `, ${recorded.base_url}` : ''}) `;
  } catch {
    return '';
  }
}
