import { createQueryId, PostgresAdapter, type Compilable, type CompiledQuery, type DialectAdapter, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import type { Dialect } from './dialect.js';
import type { DatabaseSchema } from './schema.js';

/** A value a statement takes as one parameter. */
type Leaf = string | number | boolean | bigint | null | undefined | Date | Uint8Array;
type Path = ReadonlyArray<string | number>;

/** Where each parameter of the compiled statement comes from: a value of the arguments, or a constant of the statement. */
type Binding = { path: Path } | { constant: unknown };

interface Plan<R> {
  compiled: CompiledQuery<R>;
  bindings: Binding[];
}

/** Marks a parameter as "the argument at this path"; no real value starts with NUL. */
const SLOT = '\u0000slot:';

/**
 * A statement built with the query builder once, then run with new values.
 *
 * Kysely builds an immutable tree for every query and compiles it to SQL at
 * every call; for a small write that is more of the node's time than the
 * database's work (a post spent about a hundred microseconds there, on both
 * databases). Here `build` runs once per database handle and shape (and is told
 * the dialect, which it may branch on), with every
 * value of the arguments replaced by a marker; the compiled statement is kept,
 * and each call fills the markers' parameters with that call's values.
 *
 * What `build` may do with its arguments: place them where the builder takes
 * a value (each becomes one parameter), map over arrays (their lengths are
 * part of the shape), and leave out a part whose argument is `undefined` (so
 * is that). It must not compute with a value or branch on one: it sees only
 * markers. A marker that SQL would inline rather than bind is refused when the
 * statement is first built.
 *
 * Plugins still see every statement (the write watch among them): each call
 * runs the kept tree through them, as the builder would.
 */
export class PreparedStatement<A extends object, R> {
  private readonly plans = new WeakMap<DialectAdapter, Map<string, Plan<R>>>();

  constructor(private readonly build: (db: Kysely<DatabaseSchema>, args: A, dialect: Dialect) => Compilable<R> | RawBuilder<R>) {}

  async execute(db: Kysely<DatabaseSchema>, args: A): Promise<QueryResult<R>> {
    return db.getExecutor().executeQuery<R>(this.bind(db, args));
  }

  /**
   * The statement with this call's values, as the plugins have seen it: what
   * `execute` runs, or one part of a statement sent with others (together.ts).
   */
  bind(db: Kysely<DatabaseSchema>, args: A): CompiledQuery<R> {
    const executor = db.getExecutor();
    const plan = this.plan(db, args, executor.adapter);
    const queryId = createQueryId();
    executor.transformQuery(plan.compiled.query, queryId);
    const parameters = plan.bindings.map((binding) => ('constant' in binding ? binding.constant : at(args, binding.path)));
    return { ...plan.compiled, queryId, parameters };
  }

  async rows(db: Kysely<DatabaseSchema>, args: A): Promise<R[]> {
    return (await this.execute(db, args)).rows;
  }

  async first(db: Kysely<DatabaseSchema>, args: A): Promise<R | undefined> {
    return (await this.execute(db, args)).rows[0];
  }

  private plan(db: Kysely<DatabaseSchema>, args: A, adapter: DialectAdapter): Plan<R> {
    let shapes = this.plans.get(adapter);
    if (!shapes) this.plans.set(adapter, (shapes = new Map()));
    const shape = shapeOf(args);
    let plan = shapes.get(shape);
    if (!plan) {
      const built = this.build(db, marked(args, []) as A, adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite');
      // A query builder compiles itself; an `sql` template needs the handle to compile with.
      const compiled = 'isRawBuilder' in built ? built.compile(db) : built.compile();
      if (compiled.sql.includes(SLOT)) throw new Error(`a prepared statement inlines an argument instead of binding it: ${compiled.sql}`);
      const bindings = compiled.parameters.map((parameter): Binding =>
        typeof parameter === 'string' && parameter.startsWith(SLOT) ? { path: JSON.parse(parameter.slice(SLOT.length)) as Path } : { constant: parameter },
      );
      plan = { compiled, bindings };
      shapes.set(shape, plan);
    }
    return plan;
  }
}

function isLeaf(value: unknown): value is Leaf {
  return value === null || typeof value !== 'object' || value instanceof Date || value instanceof Uint8Array;
}

/** The arguments with every leaf a marker naming its path; `undefined` stays, as a part left out. */
function marked(value: unknown, path: Path): unknown {
  if (value === undefined) return undefined;
  if (isLeaf(value)) return SLOT + JSON.stringify(path);
  if (Array.isArray(value)) return value.map((item, i) => marked(item, [...path, i]));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, marked(item, [...path, key])]));
}

/** What a statement built from these arguments depends on besides their values: array lengths and parts left out. */
function shapeOf(value: unknown): string {
  if (value === undefined) return 'u';
  if (isLeaf(value)) return '';
  if (Array.isArray(value)) return `[${value.length}:${value.map(shapeOf).join(',')}]`;
  let shape = '{';
  for (const key in value) shape += `${key}${shapeOf((value as Record<string, unknown>)[key])},`;
  return `${shape}}`;
}

function at(value: unknown, path: Path): unknown {
  let here = value;
  for (const step of path) here = (here as Record<string | number, unknown>)[step];
  return here;
}
