import { sql } from 'kysely';
import type { Static } from '@sinclair/typebox';
import type { Database } from '../storage/database.js';
import type { NodeSample, OperatorStatus } from './schemas.js';

/** How far back the page looks. */
const WINDOW_MS = 30 * 60 * 1000;
/** A node that sampled itself this recently is running. */
const CURRENT_MS = 30 * 1000;
const ERRORS_WINDOW_MS = 60 * 60 * 1000;
const LARGEST = 10;

/**
 * What the operator's page shows (docs/operations.md, "The operator's page"):
 * the nodes and their last half hour of samples, the largest tables, error
 * answers of the last hour by code, and the janitor's newest run.
 */
export async function operatorStatus(db: Database, now: Date): Promise<Static<typeof OperatorStatus>> {
  const since = new Date(now.getTime() - Math.max(WINDOW_MS, ERRORS_WINDOW_MS)).toISOString();
  const rows = await db.kysely.selectFrom('operator_samples').select(['node', 'ts', 'sample']).where('ts', '>=', since).orderBy('ts').orderBy('node').execute();
  const all = rows.map((row) => JSON.parse(row.sample) as NodeSample);
  const windowStart = new Date(now.getTime() - WINDOW_MS).toISOString();
  const errorsStart = new Date(now.getTime() - ERRORS_WINDOW_MS).toISOString();

  const nodes = new Map<string, { node: string; first_seen_ts: string; last_seen_ts: string; leading: boolean; ready: boolean; current: boolean }>();
  const errors: Record<string, number> = {};
  let janitor: NodeSample['janitor'] = null;
  for (const s of all) {
    if (s.ts >= errorsStart) for (const [code, n] of Object.entries(s.errors)) errors[code] = (errors[code] ?? 0) + n;
    if (s.janitor && (!janitor || s.janitor.finished_ts > janitor.finished_ts)) janitor = s.janitor;
    if (s.ts < windowStart) continue;
    const known = nodes.get(s.node);
    nodes.set(s.node, {
      node: s.node,
      first_seen_ts: known?.first_seen_ts ?? s.ts,
      last_seen_ts: s.ts,
      leading: s.leading,
      ready: s.ready,
      current: now.getTime() - Date.parse(s.ts) <= CURRENT_MS,
    });
  }
  return {
    now: now.toISOString(),
    nodes: [...nodes.values()].sort((a, b) => (a.last_seen_ts < b.last_seen_ts ? 1 : a.last_seen_ts > b.last_seen_ts ? -1 : a.node < b.node ? -1 : 1)),
    samples: all.filter((s) => s.ts >= windowStart),
    tables: await largestTables(db),
    errors,
    janitor,
  };
}

/** Tables and indexes by size on disk: SQLite's dbstat, PostgreSQL's relation sizes in this schema. */
async function largestTables(db: Database): Promise<Array<{ name: string; bytes: number }>> {
  if (db.dialect === 'sqlite') {
    const rows = await sql<{ name: string; bytes: number }>`select name, sum(pgsize) as bytes from dbstat where name not like 'sqlite_%' group by name order by bytes desc limit ${LARGEST}`.execute(db.kysely);
    return rows.rows.map((r) => ({ name: r.name, bytes: Number(r.bytes) }));
  }
  const rows = await sql<{ name: string; bytes: string }>`
    select name, bytes from (
      -- A table with its TOAST (where blobs' bytes live), an index on its own: as SQLite counts each b-tree.
      select c.relname as name, case c.relkind when 'r' then pg_table_size(c.oid) else pg_relation_size(c.oid) end as bytes
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'i')
    ) sizes order by bytes desc, name limit ${LARGEST}`.execute(db.kysely);
  return rows.rows.map((r) => ({ name: r.name, bytes: Number(r.bytes) }));
}
