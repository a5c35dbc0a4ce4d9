/**
 * True when a write failed on a UNIQUE or PRIMARY KEY constraint, on either
 * backend: PostgreSQL's SQLSTATE 23505 or SQLite's extended result codes. The
 * database is the arbiter of uniqueness under concurrency; a prior SELECT is only
 * a fast path for a friendlier message.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
