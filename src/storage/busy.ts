import { AtriumError } from '../shared/errors.js';

/** What SQLite waits for a lock another process holds (`atrium admin janitor`, a backup) before answering busy. */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * SQLite's "another connection holds the lock" (SQLITE_BUSY and its extended
 * codes, such as SQLITE_BUSY_SNAPSHOT). Nothing of the unit was written, so
 * the client may simply send it again.
 */
export function isDatabaseBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** What a write that still found the database busy after its retries answers: 503, retry later, never a 500. */
export function databaseBusy(busyTimeoutMs: number): AtriumError {
  return new AtriumError('host_busy', 'the database is busy with another process’s write (such as atrium admin janitor or a backup); retry shortly', {
    'retry-after': String(Math.max(1, Math.ceil(busyTimeoutMs / 1000))),
  });
}
