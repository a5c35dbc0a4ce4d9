import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/*
 * The database and the data directory hold what the keys protect (sessions'
 * hashes, every message, the sealed signing keys' ciphertext): readable by the
 * host's user alone, like the keys and backups. Imports nothing of the
 * service, so the gateway's entry point may use it for its own store.
 */

/** Where the SQLite database at `path` keeps its write-ahead log and shared memory, which SQLite makes with the database file's mode. */
export function sqliteFiles(path: string): string[] {
  const file = resolve(path);
  return [file, `${file}-wal`, `${file}-shm`];
}

/** Makes `dir` (and any parent it must make) readable by this user only, if it does not exist yet. */
export function createPrivateDirectory(dir: string): void {
  mkdirSync(resolve(dir), { recursive: true, mode: 0o700 });
}

/**
 * Makes the SQLite database file at `path`, mode 0600, before SQLite opens it
 * (SQLite would make it 0644 under the usual umask, and its -wal and -shm
 * after it); its directory, if missing, 0700. An existing file is left as it
 * is: `tightenModes` is for those.
 */
export function createPrivateSqliteFile(path: string): void {
  const file = resolve(path);
  createPrivateDirectory(dirname(file));
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
}

export interface Tightened {
  path: string;
  /** The mode it had, in octal, and the mode it has now. */
  was: string;
  now: string;
}

/**
 * Takes every permission for the group and others from those of `paths` that
 * exist (a directory becomes 0700, a file 0600), and says which it changed.
 * Owned by another user, a path is left as it is: chmod would fail, and the
 * doctor names it.
 */
export function tightenModes(paths: readonly string[]): Tightened[] {
  const changed: Tightened[] = [];
  for (const path of paths) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    try {
      chmodSync(path, mode & 0o700);
      changed.push({ path, was: mode.toString(8).padStart(4, '0'), now: (mode & 0o700).toString(8).padStart(4, '0') });
    } catch {
      // Not ours to change.
    }
  }
  return changed;
}

/** Which of `paths` others may read (a mode with group or other bits), with their modes in octal. */
export function readableByOthers(paths: readonly string[]): Array<{ path: string; mode: string }> {
  return paths.flatMap((path) => {
    try {
      const mode = statSync(path).mode & 0o777;
      return (mode & 0o077) !== 0 ? [{ path, mode: mode.toString(8).padStart(4, '0') }] : [];
    } catch {
      return [];
    }
  });
}

/**
 * What `serve` and `gateway` do before they open anything: the data directory
 * made 0700 if missing, then it and the SQLite databases named (with their
 * -wal and -shm) tightened if others may read them. Says what it changed, for
 * the start to log once.
 */
export function keepStoragePrivate(dataDir: string, sqliteUrls: ReadonlyArray<string | undefined>): Tightened[] {
  createPrivateDirectory(dataDir);
  const databases = sqliteUrls.flatMap((url) => {
    if (url === undefined || !url.startsWith('sqlite:')) return [];
    const path = url.slice('sqlite:'.length);
    return path === '' || path === ':memory:' ? [] : sqliteFiles(path);
  });
  return tightenModes([resolve(dataDir), ...databases]);
}

/** The line a start logs, once, for each file it tightened. */
export function describeTightened(t: Tightened): string {
  return `${t.path} could be read by other users of this machine (mode ${t.was}); it is now ${t.now}, readable by this user only`;
}
