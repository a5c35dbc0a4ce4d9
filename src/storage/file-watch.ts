import { statSync, watch, type FSWatcher } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** How often the files are looked at. */
const LOOK_EVERY_MS = 1_000;

interface Watched {
  what: string;
  path: string;
  /** Device and inode when the node started: the same path with another inode is another file. */
  identity: string;
}

/**
 * Watches the files a node cannot lose while it runs: the SQLite database file
 * and the data directory (keys, the outbox). A process keeps writing to a file
 * that was deleted or replaced under it, and nothing fails until a restart
 * comes back empty: a newcomer deleted ./data while the host ran, went on
 * writing with /readyz ready, and lost it all. `lost()` says why the node must
 * stop taking writes, once it must; it stays so until the node restarts.
 */
export class StorageFileWatch {
  private readonly watched: Watched[] = [];
  private readonly watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private reason: string | undefined;

  constructor(
    files: { databaseUrl: string; dataDir: string },
    private readonly onLost: (reason: string) => void,
  ) {
    if (files.databaseUrl.startsWith('sqlite:')) {
      const path = files.databaseUrl.slice('sqlite:'.length);
      if (path !== '' && path !== ':memory:') this.add('database file', resolve(path));
    }
    this.add('data directory', resolve(files.dataDir));
  }

  /** Only what exists at start is watched: a data directory never made (PostgreSQL, no keys there) cannot be lost. */
  private add(what: string, path: string): void {
    const identity = identityOf(path);
    if (identity !== undefined) this.watched.push({ what, path, identity });
  }

  start(): void {
    // The directories holding the data directory and the database file's directory: removing either (rm -rf data)
    // is noticed at once. Not the data directory itself, where every write to the database would be a notice.
    const directories = new Set(this.watched.map((w) => dirname(w.what === 'database file' ? dirname(w.path) : w.path)));
    for (const dir of directories) {
      try {
        const watcher = watch(dir, { persistent: false }, () => this.check());
        watcher.on('error', () => undefined);
        this.watchers.push(watcher);
      } catch {
        // Watching only makes it sooner; the timer below looks anyway.
      }
    }
    this.timer = setInterval(() => this.check(), LOOK_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers.length = 0;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Why this node must take no more writes, if it must; looks at the files again first. */
  check(): string | undefined {
    if (this.reason !== undefined) return this.reason;
    for (const w of this.watched) {
      const now = identityOf(w.path);
      if (now === w.identity) continue;
      this.reason = now === undefined ? `the ${w.what} ${w.path} was removed while this node ran` : `the ${w.what} ${w.path} was replaced while this node ran`;
      this.onLost(this.reason);
      break;
    }
    return this.reason;
  }

  lost(): string | undefined {
    return this.reason;
  }
}

function identityOf(path: string): string | undefined {
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}
