import { sql, type Expression, type Selectable, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { PROTOCOL } from '../shared/protocol.js';
import { invalid } from '../shared/errors.js';
import type { Database } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { decodeCursor, encodeCursor, MAX_OFFSET } from './page-cursor.js';
import { fts5Match, tsquery } from './match-syntax.js';
import { parseQuery, type ParsedQuery, type Place } from './query-language.js';
import { movePendingBeforeReading } from './pending.js';
import { resultTexts } from './result-text.js';
import { DEFAULT_SEARCH_LIMIT, type SearchKind, type SearchPage, type SearchRequest, type SearchResult } from './schemas.js';
import { searchScope, type SearchScope } from './scope.js';
import type { SearchDocumentTable } from './tables.js';
import { withSearchTimeout } from './statement-timeout.js';

/** The FTS5 table holds the terms on SQLite; only search reads it, so the shared schema leaves it out. */
type Indexed = DatabaseSchema & { search_terms: { rowid: number; title: string; body: string } };
type Docs = ExpressionBuilder<Indexed & { d: DatabaseSchema['search_documents'] }, 'd'>;

/**
 * `GET /v0/search` (docs/search.md). One query finds, filters by what the
 * caller may read and by the operators, ranks and pages; the page's text is
 * then read from the records themselves for snippets, so the index holds terms
 * and never a second copy of anyone's words.
 */
export async function search(db: Database, actor: Actor, request: SearchRequest): Promise<SearchPage> {
  const parsed = parseQuery(request.q);
  const filters = mergeRequestFilters(parsed, request);
  const binding = { q: request.q, space: request.space, kind: request.kind, sort: request.sort };
  const offset = decodeCursor(binding, request.cursor);
  const limit = Math.min(request.limit ?? DEFAULT_SEARCH_LIMIT, MAX_OFFSET - offset);
  await requireKnownSpaces(db.kysely, [...parsed.places.map((place) => place.space), ...(request.space ? [request.space] : [])]);
  // SQLite: documents still waiting to be moved into the index go in now, so every committed record is found.
  await movePendingBeforeReading(db);
  const scope = await searchScope(db.kysely, actor);
  const rows = limit <= 0 || filters === null ? [] : await findDocuments(db, parsed, filters, scope, request.sort ?? 'relevance', offset, limit + 1);
  const more = rows.length > limit && offset + limit < MAX_OFFSET;
  const page = rows.slice(0, limit);
  const results = await describe(db.kysely, page, parsed);
  return { protocol: PROTOCOL, results, next_cursor: more ? encodeCursor(binding, offset + limit) : null };
}

/** What narrows the results besides the words: the query's operators, and `space=` and `kind=`. */
interface Filters {
  authors: string[];
  places: Place[];
  kinds: SearchKind[];
  directOnly: boolean;
  createdBefore: string | null;
  createdAfter: string | null;
}

/**
 * `space=` and `kind=` narrow as `in:` and `kind:` do; given both ways, a
 * result must satisfy both, and null means none can.
 */
function mergeRequestFilters(parsed: ParsedQuery, request: SearchRequest): Filters | null {
  const filters: Filters = { ...parsed };
  if (request.space !== undefined) {
    if (filters.places.length === 0) filters.places = [{ space: request.space, channel: null }];
    else {
      filters.places = filters.places.filter((place) => place.space === request.space);
      if (filters.places.length === 0) return null;
    }
  }
  if (request.kind !== undefined) {
    if (filters.kinds.length > 0 && !filters.kinds.includes(request.kind)) return null;
    filters.kinds = [request.kind];
  }
  return filters;
}

async function requireKnownSpaces(db: Kysely<DatabaseSchema>, slugs: string[]): Promise<void> {
  if (slugs.length === 0) return;
  const unique = [...new Set(slugs)];
  const known = await db.selectFrom('spaces').select('slug').where('slug', 'in', unique).execute();
  const missing = unique.filter((slug) => !known.some((row) => row.slug === slug));
  if (missing.length > 0) throw invalid('search_query_invalid', `in: names no Space called ${missing[0]}`);
}

type DocumentRow = Selectable<SearchDocumentTable>;
const DOCUMENT_FIELDS = ['id', 'kind', 'record_key', 'space', 'channel', 'task_id', 'direct_member_a', 'direct_member_b', 'author', 'created_ts'] as const;

async function findDocuments(
  db: Database,
  parsed: ParsedQuery,
  filters: Filters,
  scope: SearchScope,
  sort: 'relevance' | 'newest',
  offset: number,
  limit: number,
): Promise<DocumentRow[]> {
  const k = db.kysely as unknown as Kysely<Indexed>;
  const columns = DOCUMENT_FIELDS.map((field) => `d.${field}` as const);
  const fts = db.dialect === 'sqlite' ? fts5Match(parsed) : null;
  // SQLite: the match leads the join. The planner cannot tell how many records a
  // match holds, and given an operator's index (from:, in:, after:) starts there,
  // asking FTS5 about each record that index yields: every ask evaluates the
  // whole match again (a from: of 6,000 records took 750 ms on a million
  // messages; led by the match, 10 ms). A CROSS JOIN is how SQLite is told the order.
  const unmatched = k.selectFrom('search_documents as d');
  const led = fts !== null && fts.match !== null;
  if (led && (await fewDocumentsBy(k, filters))) return authorLed(k, columns, scope, filters, fts, sort, offset, limit);
  const documents = led
    ? (k.selectFrom('search_terms').crossJoin('search_documents as d').whereRef('search_terms.rowid', '=', 'd.id') as unknown as typeof unmatched)
    : unmatched;
  let query = documents
    .select(columns)
    .where((eb) => readable(eb as unknown as Docs, scope, db.dialect, filters.directOnly))
    .where((eb) => matchesFilters(eb as unknown as Docs, filters));
  const terms = db.dialect === 'postgres' ? tsquery(parsed) : null;
  if (terms !== null) query = query.where(sql<SqlBool>`d.terms @@ ${terms}::tsquery`);
  if (fts !== null) {
    if (fts.match !== null) query = query.where(sql<SqlBool>`search_terms MATCH ${fts.match}`);
    if (fts.exclude !== null) query = query.where(sql<SqlBool>`d.id not in (select rowid from search_terms where search_terms match ${fts.exclude})`);
  }
  const ranked = sort === 'relevance' && parsed.include.length > 0;
  if (!ranked) {
    const rows = await withSearchTimeout(db, (run) => run.executeQuery(query.orderBy('d.created_ts', 'desc').orderBy('d.id', 'desc').limit(limit).offset(offset)));
    return rows.rows.map(documentRow);
  }
  // Relevance ranks the newest RANKED_MATCHES readable matches only (docs/search.md,
  // "Ranking, order and pages"): the index's own order is newest first and both
  // databases can walk it and stop, where ranking every match first costs what
  // the words match (`the`: 616,000 documents, a second).
  // FTS5 scores a row only while its match is being read, so bm25 is taken inside;
  // ts_rank_cd is taken outside, for the survivors alone rather than every match.
  const newest = query
    .$if(led, (q) => q.select(sql<number>`bm25(search_terms, 4.0, 1.0)`.as('score')))
    .$if(!led, (q) => q.select(sql<string>`d.terms`.as('terms')))
    .orderBy(led ? sql`search_terms.rowid` : sql`d.id`, 'desc')
    .limit(RANKED_MATCHES);
  const page = k
    .selectFrom(newest.as('newest'))
    .select(DOCUMENT_FIELDS.map((field) => `newest.${field}` as const))
    // bm25 is lower for better matches, ts_rank_cd higher.
    .orderBy(led ? sql`newest.score` : sql`ts_rank_cd(newest.terms, ${terms}::tsquery)`, led ? 'asc' : 'desc')
    .orderBy('newest.created_ts', 'desc')
    .orderBy('newest.id', 'desc')
    .limit(limit)
    .offset(offset);
  const rows = await withSearchTimeout(db, (run) => run.executeQuery(page));
  return rows.rows.map(documentRow);
}

/**
 * The most documents `from:` may name (within `before:` and `after:`) for an
 * SQLite search with words to start from them (`authorLed`).
 */
export const AUTHOR_LED_DOCUMENTS = 5_000;

/** Whether `from:` names few enough documents to start from them: counted through the author index, and no further than the bound. */
async function fewDocumentsBy(k: Kysely<Indexed>, filters: Filters): Promise<boolean> {
  if (filters.authors.length === 0) return false;
  const named = k
    .selectFrom('search_documents')
    .select(sql<number>`1`.as('one'))
    .where('author', 'in', filters.authors)
    .$if(filters.createdAfter !== null, (q) => q.where('created_ts', '>', filters.createdAfter!))
    .$if(filters.createdBefore !== null, (q) => q.where('created_ts', '<', filters.createdBefore!))
    .limit(AUTHOR_LED_DOCUMENTS + 1);
  const { n } = await k
    .selectFrom(named.as('named'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n) <= AUTHOR_LED_DOCUMENTS;
}

/**
 * SQLite, words and a `from:` of few documents (docs/search.md, "Costs"): one
 * pass over the match, keeping only the author's document ids (read from the
 * author index alone, no document read) and scoring those, then the
 * survivors' rows for the other filters. Led by the match as other queries
 * are, a search reads the row of every document its words match to keep the
 * author's (the benchmark's operator query: 5,956 read for 18 kept).
 */
async function authorLed(
  k: Kysely<Indexed>,
  columns: Array<`d.${(typeof DOCUMENT_FIELDS)[number]}`>,
  scope: SearchScope,
  filters: Filters,
  fts: NonNullable<ReturnType<typeof fts5Match>>,
  sort: 'relevance' | 'newest',
  offset: number,
  limit: number,
): Promise<DocumentRow[]> {
  const authorIds = k
    .selectFrom('search_documents')
    .select('id')
    .where('author', 'in', filters.authors)
    .$if(filters.createdAfter !== null, (q) => q.where('created_ts', '>', filters.createdAfter!))
    .$if(filters.createdBefore !== null, (q) => q.where('created_ts', '<', filters.createdBefore!));
  const scored = k
    .selectFrom('search_terms')
    .select(['search_terms.rowid as id', sql<number>`bm25(search_terms, 4.0, 1.0)`.as('score')])
    .where(sql<SqlBool>`search_terms MATCH ${fts.match}`)
    // The unary + makes the author's ids a filter on the one pass over the match: as a
    // constraint, FTS5 would evaluate the whole match again for each id (2 ms apiece here).
    .where(sql<SqlBool>`+search_terms.rowid in ${authorIds}`);
  // The CROSS JOIN keeps the match's pass outermost: each survivor's row is then read by id.
  let query = k
    .with('scored', () => scored)
    .selectFrom('scored as s')
    .crossJoin('search_documents as d')
    .whereRef('d.id', '=', 's.id')
    .select([...columns, 's.score'])
    .where((eb) => readable(eb as unknown as Docs, scope, 'sqlite', filters.directOnly))
    .where((eb) => matchesFilters(eb as unknown as Docs, filters));
  if (fts.exclude !== null) query = query.where(sql<SqlBool>`d.id not in (select rowid from search_terms where search_terms match ${fts.exclude})`);
  if (sort === 'newest') return (await query.orderBy('d.created_ts', 'desc').orderBy('d.id', 'desc').limit(limit).offset(offset).execute()).map(documentRow);
  const newest = await query.orderBy('d.id', 'desc').limit(RANKED_MATCHES).execute();
  // bm25 is lower for better matches; ties newest first, as the match-led query orders them.
  return newest
    .sort((a, b) => a.score - b.score || b.created_ts.localeCompare(a.created_ts) || b.id - a.id)
    .slice(offset, offset + limit)
    .map(({ score: _score, ...row }) => documentRow(row));
}

/**
 * How many of a query's matches relevance ranks: the newest this many the
 * caller may read. Paging stops at MAX_OFFSET results, so every page a client
 * can reach comes from the same ranked set.
 */
export const RANKED_MATCHES = 1000;

const documentRow = (row: Record<string, unknown>): DocumentRow =>
  ({ ...row, id: Number(row.id), task_id: row.task_id === null ? null : Number(row.task_id) }) as unknown as DocumentRow;

function readable(eb: Docs, scope: SearchScope, dialect: Database['dialect'], directOnly: boolean): Expression<SqlBool> {
  // One parameter however many Spaces there are: PostgreSQL takes an array, SQLite a JSON array.
  const spaceReadable =
    scope.readable === null
      ? sql<SqlBool>`1 = 1`
      : dialect === 'postgres'
        ? sql<SqlBool>`d.space = any(${scope.readable}::text[])`
        : // The unary + keeps SQLite from reading every readable Space's documents through the Space index.
          sql<SqlBool>`+d.space in (select value from json_each(${JSON.stringify(scope.readable)}))`;
  // A direct message is its two participants' alone (no role reads another's), and a narrowed
  // token's only inside its Spaces, as in the inbox.
  const withinGrant = (condition: Expression<SqlBool>) =>
    scope.granted === null ? condition : scope.granted.length === 0 ? sql<SqlBool>`1 = 0` : eb.and([eb('d.space', 'in', scope.granted), condition]);
  const own = (member: string) => withinGrant(eb.or([eb('d.direct_member_a', '=', member), eb('d.direct_member_b', '=', member)]));
  // With is:dm, only the caller's own conversations: said without the channel posts' branch,
  // so each database can read them through the direct pair's indexes.
  const direct =
    scope.member === null
      ? directOnly
        ? sql<SqlBool>`1 = 0`
        : eb('d.direct_member_a', 'is', null)
      : directOnly
        ? own(scope.member)
        : eb.or([eb('d.direct_member_a', 'is', null), own(scope.member)]);
  return eb.and([spaceReadable, direct]);
}

function matchesFilters(eb: Docs, filters: Filters): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (filters.authors.length > 0) conditions.push(eb('d.author', 'in', filters.authors));
  if (filters.places.length > 0) {
    conditions.push(
      eb.or(filters.places.map((place) => (place.channel === null ? eb('d.space', '=', place.space) : eb.and([eb('d.space', '=', place.space), eb('d.channel', '=', place.channel)])))),
    );
  }
  if (filters.kinds.length > 0) conditions.push(eb('d.kind', 'in', filters.kinds));
  if (filters.directOnly) conditions.push(eb('d.direct_member_a', 'is not', null));
  if (filters.createdBefore !== null) conditions.push(eb('d.created_ts', '<', filters.createdBefore));
  if (filters.createdAfter !== null) conditions.push(eb('d.created_ts', '>', filters.createdAfter));
  return eb.and(conditions);
}

/** The text and event of each row on the page, read from the records themselves. */
async function describe(db: Kysely<DatabaseSchema>, rows: DocumentRow[], parsed: ParsedQuery): Promise<SearchResult[]> {
  if (rows.length === 0) return [];
  const texts = await resultTexts(db, rows, parsed);
  const cursors = await eventCursors(db, rows);
  const results: SearchResult[] = [];
  for (const row of rows) {
    const text = texts.get(row.record_key);
    const cursor = cursors.get(row.record_key);
    // Indexed in a transaction whose event the sequencer has not numbered yet (PostgreSQL, for
    // a moment after commit): the feeds do not show it yet either.
    if (text === undefined || cursor === undefined) continue;
    const id = row.kind === 'resource' ? row.record_key.slice('resource:'.length) : Number(row.record_key.slice(row.record_key.indexOf(':') + 1));
    results.push({
      kind: row.kind,
      space: row.space,
      id,
      ...(row.channel !== null ? { channel: row.channel } : {}),
      ...(row.task_id !== null ? { task_id: row.task_id } : {}),
      ...(row.direct_member_a !== null && row.direct_member_b !== null ? { direct_members: [row.direct_member_a, row.direct_member_b] } : {}),
      ...(text.title !== null ? { title: text.title } : {}),
      author: row.author,
      created_ts: row.created_ts,
      snippet: text.snippet,
      highlights: text.highlights,
      event_cursor: cursor,
    });
  }
  return results;
}

/** The event that made each record's text current: its posting, its creation (a pin proposal is a task created by `pin_proposed`), the Resource's current version. */
const TEXT_EVENTS: Record<SearchKind, string[]> = {
  message: ['message_posted', 'message_edited'],
  task: ['task_created', 'pin_proposed'],
  resource: ['resource_created', 'resource_version_added'],
};

async function eventCursors(db: Kysely<DatabaseSchema>, rows: DocumentRow[]): Promise<Map<string, number>> {
  const found = await db
    .selectFrom('event_subjects')
    .innerJoin('events', 'events.cursor', 'event_subjects.cursor')
    .select(['event_subjects.subject', (eb) => eb.fn.max('events.cursor').as('cursor')])
    .where('event_subjects.subject', 'in', rows.map((row) => row.record_key))
    .where('events.type', 'in', [...new Set(rows.flatMap((row) => TEXT_EVENTS[row.kind]))])
    .groupBy('event_subjects.subject')
    .execute();
  return new Map(found.map((row) => [row.subject, Number(row.cursor)]));
}
