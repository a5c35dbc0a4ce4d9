import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

/** Kysely's bookkeeping table: present once Atrium has migrated a database. */
const MIGRATIONS_TABLE = 'kysely_migration';

/**
 * Whether `url` names a database Atrium has already set up, looked at without
 * creating or changing anything. Opening a SQLite path creates the file, and
 * migrating fills an empty PostgreSQL schema: an admin command run from the
 * wrong directory once made a new, empty database there and gave it an owner
 * the server never saw.
 */
export async function holdsAtrium(url: string): Promise<boolean> {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path === '' || path === ':memory:' || !existsSync(path)) return false;
    const sqlite = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
    try {
      return sqlite.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(MIGRATIONS_TABLE) !== undefined;
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: boolean }>(`select to_regclass($1) is not null as found`, [MIGRATIONS_TABLE]);
    return rows[0]?.found === true;
  } finally {
    await client.end();
  }
}

/** The database as a person should see it named: a SQLite path made absolute, a PostgreSQL URL without its password. */
export function describeDatabase(url: string): string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    return path === '' || path === ':memory:' ? url : `sqlite:${resolve(path)}`;
  }
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'postgres';
  }
}
