import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Migration, type Transaction } from 'kysely';
import pg from 'pg';

/**
 * The gateway's own store: its ledger and the requests its tickets bind. It is
 * not the service's database and shares no code with it, so nothing the
 * service runs can read or rewrite what the gateway keeps.
 */

export interface LedgerTable {
  seq: number;
  /** Copies of record fields, for the audit reader's filters; the record itself is `record`. */
  space: string | null;
  member: string | null;
  run_id: string | null;
  digest: string;
  /** The record exactly as it was hashed (JSON), so a read returns what the digest covers. */
  record: string;
}

export interface PendingTicketTable {
  jti: string;
  /** The bound request and its identity fields (JSON); kept until use or expiry, never in the ledger. */
  bound: string;
  /** Unix seconds. */
  expires_at: number;
  consumed_at: string | null;
}

export interface GatewaySchema {
  gateway_ledger: LedgerTable;
  gateway_pending_tickets: PendingTicketTable;
}

export type StoreDialect = 'sqlite' | 'postgres';

export interface GatewayStore {
  readonly db: Kysely<GatewaySchema>;
  readonly dialect: StoreDialect;
  transaction<T>(fn: (trx: Transaction<GatewaySchema>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function openStore(url: string): GatewayStore {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length) || ':memory:';
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    const sqlite = new BetterSqlite3(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    // `atrium gateway verify-ledger` may read while the gateway writes.
    sqlite.pragma('busy_timeout = 2000');
    return wrap(new Kysely<GatewaySchema>({ dialect: new SqliteDialect({ database: sqlite }) }), 'sqlite');
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      // A store that cannot take a write within seconds is unavailable: the
      // caller gets 503 at once rather than a request that hangs (SQLite: busy_timeout).
      lock_timeout: 2000,
      // int8 as JS numbers: sequence numbers and Unix seconds stay far below 2^53.
      types: { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)) } as pg.CustomTypesConfig,
    });
    // An idle client's connection dropping (the server restarting) must not crash the process.
    pool.on('error', () => {});
    return wrap(new Kysely<GatewaySchema>({ dialect: new PostgresDialect({ pool }) }), 'postgres');
  }
  throw new Error('the gateway database URL must start with sqlite: or postgres://');
}

function wrap(db: Kysely<GatewaySchema>, dialect: StoreDialect): GatewayStore {
  return {
    db,
    dialect,
    transaction: (fn) => db.transaction().execute(fn),
    close: () => db.destroy(),
  };
}

/**
 * Listed here, never discovered from files; the bookkeeping tables have the
 * gateway's own names so a gateway pointed at the service's database cannot
 * mistake the service's migrations for its own.
 */
const MIGRATIONS: Record<string, { up(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> }> = {
  '0001-ledger': {
    async up(db, dialect) {
      await db.schema
        .createTable('gateway_ledger')
        .addColumn('seq', 'bigint', (c) => c.primaryKey())
        .addColumn('space', 'text')
        .addColumn('member', 'text')
        .addColumn('run_id', 'text')
        .addColumn('digest', 'text', (c) => c.notNull())
        .addColumn('record', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('gateway_ledger_space').on('gateway_ledger').columns(['space', 'seq']).execute();
      await db.schema.createIndex('gateway_ledger_member').on('gateway_ledger').columns(['member', 'seq']).execute();
      await db.schema.createIndex('gateway_ledger_run').on('gateway_ledger').columns(['run_id', 'seq']).execute();
      await db.schema
        .createTable('gateway_pending_tickets')
        .addColumn('jti', 'text', (c) => c.primaryKey())
        .addColumn('bound', 'text', (c) => c.notNull())
        .addColumn('expires_at', dialect === 'postgres' ? 'bigint' : 'integer', (c) => c.notNull())
        .addColumn('consumed_at', 'text')
        .execute();
      await db.schema.createIndex('gateway_pending_tickets_expiry').on('gateway_pending_tickets').column('expires_at').execute();
    },
  },
};

export async function migrateStore(store: GatewayStore): Promise<void> {
  const schema = store.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({
    db: store.db,
    provider: {
      async getMigrations() {
        const out: Record<string, Migration> = {};
        for (const [name, m] of Object.entries(MIGRATIONS)) out[name] = { up: (db) => m.up(db, store.dialect) };
        return out;
      },
    },
    migrationTableName: 'gateway_migration',
    migrationLockTableName: 'gateway_migration_lock',
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    // Without `results`, the failure came from Kysely's listing of tables, before any migration ran.
    if (attempt >= 5 || !anotherSchemaChanged(error, schema, results === undefined)) throw error;
  }
}

/**
 * Kysely's migrator lists every table of the database, in every schema, to
 * find its own; a schema dropped or migrated meanwhile by someone else sharing
 * the database (a service host, a test next to this one) fails that listing.
 * Nothing of ours was touched, so migrating again is safe. The service's
 * storage has the same rule (storage/database.ts); it is repeated here rather
 * than imported because the gateway takes nothing from the service but wire
 * types and the egress module: what it imports is what can touch a secret.
 */
function anotherSchemaChanged(error: unknown, ours: string | undefined, whileListing: boolean): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  // 42703: a table's column went between the listing reading the catalogue and
  // asking for the column's sequence; PostgreSQL names no schema then, so it
  // counts only while listing, when nothing of ours has run yet.
  if (code === '42703') return whileListing && /^column "[^"]+" of relation "[^"]+" does not exist$/.test(String(message));
  // 3F000: the schema went first; 42P01: one of its tables went while the
  // listing resolved it by name ("schema.table").
  const named =
    code === '3F000'
      ? /schema "([^"]+)" does not exist/.exec(String(message))?.[1]
      : code === '42P01'
        ? /relation "([^".]+)\.[^"]+" does not exist/.exec(String(message))?.[1]
        : undefined;
  return named !== undefined && named !== ours;
}
