import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type DatabaseConnection, type Driver, type Transaction } from 'kysely';
import pg from 'pg';
import { appendEvents, type Appended } from '../events/append.js';
import type { NewEvent } from '../events/types.js';
import type { Clock } from '../shared/clock.js';
import { AtriumError } from '../shared/errors.js';
import { databaseBusy, DEFAULT_SQLITE_BUSY_TIMEOUT_MS, isDatabaseBusy } from './busy.js';
import type { Dialect } from './dialect.js';
import { createPrivateSqliteFile } from './file-modes.js';
import { contractReason, migrationProvider } from './migrations/index.js';
import type { PreparedStatement } from './prepared.js';
import type { DatabaseSchema } from './schema.js';
import { SqliteBatches, type Committed, type UnitOutcome, type Work } from './sqlite-batches.js';
import { WriteWatch, type WriteWatcher } from './write-watch.js';

/**
 * A unit of work. Domain services receive one and never open their own
 * transactions; whatever they `emit` is appended to the event log inside the
 * same transaction, so a state change and its event commit together or not at all.
 */
export interface Tx {
  readonly db: Transaction<DatabaseSchema>;
  readonly dialect: Dialect;
  /** One timestamp for the whole unit of work, from the injected clock. */
  readonly now: Date;
  emit(event: NewEvent): void;
  /**
   * A write nothing in this unit reads back, sent with the unit's last
   * statement (together.ts): on PostgreSQL it costs no round trip of its own.
   * Its errors surface when the unit ends, as its COMMIT's would.
   */
  later<A extends object>(statement: PreparedStatement<A, unknown>, args: A): void;
  /** Runs after a successful commit (wake feed waiters, schedule deliveries). */
  afterCommit(fn: () => void): void;
}

/**
 * What the event log does around a commit that appended events: told of them
 * inside the transaction (so a waiter exists before anything can answer it),
 * then told whether the transaction committed.
 */
export interface EventLogHooks {
  appended(appended: Appended): { committed(): Promise<void>; abandoned(): void };
}

export interface DatabaseOptions {
  /** PostgreSQL schema to use (tests isolate themselves in their own). */
  schema?: string;
  clock: Clock;
  /** SQLite only: how long a statement waits for a lock another process holds (ATRIUM_SQLITE_BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
}

export class Database {
  /** Set once by the composition root: the event log that numbers, follows and announces events. */
  eventLog: EventLogHooks | undefined;
  private readonly committedListeners: Array<() => void> = [];
  /** SQLite only: group commit (sqlite-batches.ts). */
  private readonly batches: SqliteBatches | undefined;
  /** Why this node takes no more writes (refuseWrites), once it must. */
  private refusal: string | undefined;

  private constructor(
    readonly kysely: Kysely<DatabaseSchema>,
    /** Shared with the plugin on `kysely`: see `watchWrites`. */
    private readonly watchers: WriteWatcher[],
    readonly dialect: Dialect,
    private readonly options: DatabaseOptions,
    /** PostgreSQL only: the pool the Kysely dialect uses, and how to open a connection of one's own. */
    readonly postgres?: { pool: pg.Pool; connect(): Promise<pg.Client>; schema(): Promise<string> },
  ) {
    this.batches = dialect === 'sqlite' ? new SqliteBatches(kysely) : undefined;
  }

  static open(url: string, options: DatabaseOptions): Database {
    const watchers: WriteWatcher[] = [];
    const plugins = [new WriteWatch(watchers, 'each statement')];
    if (url.startsWith('sqlite:')) {
      const path = url.slice('sqlite:'.length) || ':memory:';
      // Made readable by this user alone before SQLite opens it: SQLite gives the -wal and -shm files the database file's mode.
      if (path !== ':memory:') createPrivateSqliteFile(path);
      const sqlite = new BetterSqlite3(path);
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('synchronous = NORMAL');
      sqlite.pragma('foreign_keys = ON');
      // Another process (the `atrium admin` CLI, a backup) may hold the write lock briefly.
      sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS}`);
      // A page cache of up to 64 MiB (SQLite's default is 2 MiB), filled only as pages are read.
      // A search reads the documents its words match, scattered through the table; with the
      // default cache each search read them from the operating system again (docs/search.md, "Costs").
      sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
      const kysely = new Kysely<DatabaseSchema>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }), plugins });
      return new Database(kysely, watchers, 'sqlite', options);
    }
    if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
      const connection: pg.ClientConfig = {
        connectionString: url,
        ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
        // int8 (event cursors, counts) as JS numbers: cursors stay far below 2^53.
        types: { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)) } as pg.CustomTypesConfig,
      };
      const pool = new pg.Pool({ ...connection, max: 10 });
      const kysely = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }), plugins });
      let schemaName: string | undefined = options.schema;
      return new Database(kysely, watchers, 'postgres', options, {
        pool,
        async connect() {
          const client = new pg.Client(connection);
          await client.connect();
          return client;
        },
        async schema() {
          schemaName ??= (await pool.query<{ schema: string }>('select current_schema() as schema')).rows[0]!.schema;
          return schemaName;
        },
      });
    }
    throw new Error('ATRIUM_DATABASE_URL must start with sqlite: or postgres://');
  }

  /**
   * Tells `watcher` of every matching write this node makes, through
   * `kysely` or a transaction, when it is issued and when it settled. What
   * other nodes and processes write it never hears of: see the watcher.
   */
  watchWrites(watcher: WriteWatcher): void {
    this.watchers.push(watcher);
  }

  /** Calls `listener` after each transaction of this node commits (src/search/pending.ts moves new search documents then). */
  onCommitted(listener: () => void): () => void {
    this.committedListeners.push(listener);
    return () => {
      const at = this.committedListeners.indexOf(listener);
      if (at >= 0) this.committedListeners.splice(at, 1);
    };
  }

  /**
   * From now on every unit of work is refused (503 `node_unavailable`): the
   * node's storage went away under it (storage/file-watch.ts), and what it
   * wrote would go nowhere anyone will read it again.
   */
  refuseWrites(reason: string): void {
    this.refusal ??= `${reason}; this node takes no writes until it is restarted`;
  }

  /** Why this node takes no writes, if it takes none. */
  get writesRefused(): string | undefined {
    return this.refusal;
  }

  private async migrator(): Promise<{ migrator: Migrator; schema: string | undefined }> {
    const schema =
      this.dialect === 'postgres'
        ? (this.options.schema ?? (await sql<{ schema: string }>`select current_schema() as schema`.execute(this.kysely)).rows[0]?.schema)
        : undefined;
    const migrator = new Migrator({
      db: this.kysely,
      provider: migrationProvider(this.dialect),
      // Kysely looks for its bookkeeping tables in every schema it can see; name
      // ours, or a second Atrium schema in the same database would be mistaken
      // for this one's.
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    return { migrator, schema };
  }

  /** Migrations this database has not had yet, in order, each with why it is not safe while old nodes run (if it is not); changes nothing. */
  async pendingMigrations(): Promise<Array<{ name: string; contract: string | undefined }>> {
    const { migrator } = await this.migrator();
    return (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => ({ name: m.name, contract: contractReason(m.name) }));
  }

  async migrate(): Promise<string[]> {
    const { migrator, schema } = await this.migrator();
    for (let attempt = 1; ; attempt++) {
      const { error, results } = await migrator.migrateToLatest();
      if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
      // Kysely answers `results` once it has started migrating; without them the
      // failure came from its listing of tables, before anything of ours ran.
      if (attempt >= 5 || !anotherSchemaChanged(error, schema, results === undefined)) throw error;
    }
  }

  /**
   * Runs a unit of work. Its events are appended as the last step before
   * COMMIT; once committed, the event log is told, and the call returns only
   * when those events are readable in the feeds, so a client that wrote
   * something reads it back. On SQLite, units that queue for the connection
   * together share one COMMIT (sqlite-batches.ts); each is still all or nothing.
   */
  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.refusal !== undefined) throw new AtriumError('node_unavailable', this.refusal);
    const work = (trx: Transaction<DatabaseSchema>) => this.unit(trx, fn);
    let committed: Committed<T>;
    try {
      committed = this.batches ? await this.batches.run(work) : await this.alone(work);
    } catch (err) {
      // Still busy after the batch's retries: the client may send it again, nothing of it was written.
      if (this.batches && isDatabaseBusy(err)) throw databaseBusy(this.options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
      throw err;
    }
    const { value, announced } = committed;
    await announced;
    for (const listener of this.committedListeners) listener();
    return value;
  }

  /** A unit in a transaction of its own (PostgreSQL, where writers commit concurrently). */
  private async alone<T>(work: Work<T>): Promise<Committed<T>> {
    // Kept as it is reached, so a COMMIT that fails can still abandon it.
    let reached: UnitOutcome<T> | undefined;
    let outcome: UnitOutcome<T>;
    try {
      outcome = await this.kysely.transaction().execute(async (trx) => (reached = await work(trx)));
    } catch (err) {
      // A unit that threw settled itself; one whose COMMIT failed is abandoned here.
      reached?.abandoned();
      reached?.settled();
      throw err;
    }
    outcome.settled();
    return { value: outcome.value, announced: outcome.committed() };
  }

  /**
   * One unit of work inside a transaction: runs `fn`, appends what it emitted,
   * and says what to do once the transaction's fate is known.
   */
  private async unit<T>(trx: Transaction<DatabaseSchema>, fn: (tx: Tx) => Promise<T>): Promise<UnitOutcome<T>> {
    const hooks: Array<() => void> = [];
    const pending: NewEvent[] = [];
    const writes: CompiledQuery[] = [];
    const now = this.options.clock.now();
    const watch = this.watchers.length > 0 ? new WriteWatch(this.watchers, 'with the transaction') : undefined;
    let ticket: ReturnType<EventLogHooks['appended']> | undefined;
    try {
      const tx: Tx = {
        db: watch ? trx.withPlugin(watch) : trx,
        dialect: this.dialect,
        now,
        emit: (event) => pending.push(event),
        later: (statement, args) => writes.push(statement.bind(tx.db, args)),
        afterCommit: (hook) => hooks.push(hook),
      };
      const value = await fn(tx);
      const appended = await appendEvents(trx, this.dialect, pending, now.toISOString(), writes);
      if (pending.length > 0) ticket = this.eventLog?.appended(appended);
      return {
        value,
        committed: async () => {
          await ticket?.committed();
          for (const hook of hooks) hook();
        },
        abandoned: () => ticket?.abandoned(),
        settled: () => watch?.settle(),
      };
    } catch (err) {
      ticket?.abandoned();
      watch?.settle();
      throw err;
    }
  }

  async destroy(): Promise<void> {
    await this.kysely.destroy();
  }
}

/**
 * Kysely's migrator looks for its table by listing every table of the
 * database, in every schema. If another schema of the same database is
 * dropped or migrated meanwhile (another Atrium host sharing the database, or
 * a test run next to this one), that listing fails on what went away.
 * Nothing of ours was touched: migrating again is safe, as migrations run
 * under the migrator's lock and skip what is done. Our own schema missing is
 * not that, and fails at once.
 */
export function anotherSchemaChanged(error: unknown, ours: string | undefined, whileListing: boolean): boolean {
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

/**
 * SQLite transactions begin IMMEDIATE: the write lock is taken at BEGIN, where
 * a lock another process holds (`atrium admin janitor`) is waited for under the
 * busy timeout. A deferred transaction takes it at its first write instead,
 * and when another process committed since the transaction's first read,
 * SQLite answers SQLITE_BUSY at once, without waiting: a write failed so while
 * the janitor ran beside a serving host. This node has one connection, so
 * taking the lock early costs it nothing.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

/** The SQLite page cache's bound, in KiB (a negative `cache_size` is KiB; a positive one, pages). */
const SQLITE_CACHE_KIB = 65536;

/** Compiled statements kept per SQLite connection; beyond this, the least recently used is dropped. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query afresh, and compiling a statement is a large
 * share of a small query's cost in better-sqlite3 (a feed poll spent about a
 * third of its database time there). A statement is reusable once it has run,
 * and queries run one at a time on SQLite's single connection, so the compiled
 * statement is kept by its SQL text. A statement still being iterated (a
 * streamed query) is busy: such a call gets a fresh one. SQLite recompiles a
 * kept statement by itself if the schema changes under it (migrations).
 */
function withStatementCache(sqlite: BetterSqlite3.Database): Pick<BetterSqlite3.Database, 'prepare' | 'close'> {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(source: string) {
      const kept = statements.get(source);
      if (kept && !kept.busy) {
        // Map order is insertion order: moving it to the end keeps the order one of use.
        statements.delete(source);
        statements.set(source, kept);
        return kept;
      }
      const statement = sqlite.prepare(source);
      if (!kept) {
        statements.set(source, statement);
        if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      return statement;
    },
    close() {
      statements.clear();
      return sqlite.close();
    },
  } as Pick<BetterSqlite3.Database, 'prepare' | 'close'>;
}
