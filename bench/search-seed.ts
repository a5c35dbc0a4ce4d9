// Seeds the search benchmark's database with the Atrium checkout given on the
// command line: 200 active Spaces (three open for every request and invite one),
// 2,000 authors, ATRIUM_BENCH_SEARCH_MESSAGES messages (1,000,000 by default;
// channel posts, 2% direct messages, 1% task discussion) over two years, some
// tasks and Markdown Resources, and the members the scenarios search as.
// Prints one JSON line: the credentials, the queries and what they should find,
// and the index's size.
//
// Spaces, members, tasks and Resources go through the services, as the API
// would write them. Messages would take hours that way, so they are written in
// bulk, 10,000 to a transaction: the same rows the service writes, their
// documents through the same index functions (messageDocument, writeDocuments),
// and their `message_posted` events with their subjects and audiences. On
// PostgreSQL those events are written straight into `events` with cursors after
// the head, under the sequencer's lock, as the sequencer itself would number
// them (pending_events is empty by then: every service transaction waits until
// its events are numbered).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { AUTHORS, messages, proseWriter, random, SPACES, VOCABULARY_SIZE, vocabulary, zipf, type MessageDraft } from './search-corpus.js';

type App = typeof import('../src/app.js');
type Config = typeof import('../src/config.js');
type Logger = typeof import('../src/logger.js');
type Sessions = typeof import('../src/identity/sessions.js');
type MemberKeys = typeof import('../src/identity/member-keys.js');
type Members = typeof import('../src/members/service.js');
type Roles = typeof import('../src/roles/service.js');
type Spaces = typeof import('../src/spaces/service.js');
type Admission = typeof import('../src/spaces/admission.js');
type Tasks = typeof import('../src/tasks/service.js');
type Resources = typeof import('../src/resources/service.js');
type IndexWrites = typeof import('../src/search/index-writes.js');
type Pending = typeof import('../src/search/pending.js');
type StoredOnce = typeof import('../src/events/stored-once.js');
type Sequencer = typeof import('../src/events/sequencer.js');
type Actor = import('../src/identity/actor.js').Actor;
type DatabaseSchema = import('../src/storage/schema.js').DatabaseSchema;

const [, , root, databaseUrl, dataDir] = process.argv;
const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(root!, 'src', path)).href) as Promise<T>;

const { createContext } = await load<App>('app.ts');
const { loadConfig } = await load<Config>('config.ts');
const { createLogger } = await load<Logger>('logger.ts');
const { startSession } = await load<Sessions>('identity/sessions.ts');
const { mintMemberKey } = await load<MemberKeys>('identity/member-keys.ts');
const { createHuman, getMember } = await load<Members>('members/service.ts');
const { assignRole } = await load<Roles>('roles/service.ts');
const { proposeSpace, transitionSpace } = await load<Spaces>('spaces/service.ts');
const { decideJoinRequest, invite, join: joinSpace } = await load<Admission>('spaces/admission.ts');
const { createTask } = await load<Tasks>('tasks/service.ts');
const { addVersion, createResource, prepareContent } = await load<Resources>('resources/service.ts');
const { messageDocument, writeDocuments } = await load<IndexWrites>('search/index-writes.ts');
const { storedPayload } = await load<StoredOnce>('events/stored-once.ts');
const { SEQUENCING_LOCK_NAMESPACE } = await load<Sequencer>('events/sequencer.ts');

const MESSAGES = Number(process.env.ATRIUM_BENCH_SEARCH_MESSAGES ?? 1_000_000);
const PER_TRANSACTION = 10_000;
/** Tasks and Resources, created through the services between batches of messages, so their times fall among the messages'. */
const TASKS = Math.max(10, Math.round(MESSAGES / 200));
const RESOURCES = Math.max(4, Math.round(MESSAGES / 2_500));
/** The history runs from two years before the seed to an hour before it. */
const DAY = 86_400_000;
const END = Date.now() - 3_600_000;
const START = END - 730 * DAY;
/** Direct messages between the searching member and others, spread over the history. */
const SEARCHER_DIRECT = Math.max(1, Math.round(MESSAGES / 3_000));

let clockMs = START - DAY;
const config = loadConfig({ ATRIUM_DATABASE_URL: databaseUrl });
config.dataDir = dataDir!;
const ctx = await createContext(config, { log: createLogger('warn'), clock: { now: () => new Date(clockMs) } });
const db = ctx.db;
const dialect = db.dialect;
const started = performance.now();
const progress = (what: string) => process.stderr.write(`  search seed (${dialect}): ${what} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);

try {
  const system = { system: 'admin_cli' } as const;
  // Read before any transaction opens: SQLite has one connection, which a transaction holds.
  const actorOf = async (handle: string): Promise<Actor> => ({ kind: 'member', member: await getMember(db.kysely, handle), credential: { type: 'session', id: 'seed' } });

  // Members: the host-wide Owner, the authors (Zipf rank 0 writes most), the searching member, sixteen writers.
  await db.transaction(async (tx) => {
    await createHuman(tx, system, { handle: 'bench-owner', email: 'bench-owner@example.test' });
    await assignRole(tx, system, { member: 'bench-owner', role: 'owner' });
  });
  const authors = Array.from({ length: AUTHORS }, (_, rank) => `member-${String(rank).padStart(4, '0')}`);
  const writers = Array.from({ length: 16 }, (_, i) => `bench-writer-${i}`);
  const everyone = [...authors, 'bench-searcher', ...writers];
  for (let i = 0; i < everyone.length; i += 250) {
    await db.transaction(async (tx) => {
      for (const handle of everyone.slice(i, i + 250)) await createHuman(tx, system, { handle, email: `${handle}@example.test` });
    });
  }
  const owner = await actorOf('bench-owner');
  progress(`${everyone.length + 1} members`);

  // Spaces by Zipf rank (0 the busiest); the policies alternate, so busy and quiet Spaces of each kind exist.
  const policyOf = (rank: number) => (['open', 'open', 'open', 'request', 'invite'] as const)[rank % 5]!;
  const slugs = Array.from({ length: SPACES }, (_, rank) => `space-${String(rank).padStart(3, '0')}`);
  for (let i = 0; i < slugs.length; i += 50) {
    await db.transaction(async (tx) => {
      for (const [offset, slug] of slugs.slice(i, i + 50).entries()) {
        await proposeSpace(tx, owner, { slug, name: `Bench ${slug}`, join_policy: policyOf(i + offset) });
        await transitionSpace(tx, owner, slug, 'approve');
      }
    });
  }
  // Each author admitted to five Spaces, the busier ones more often, as the API admits: joining an
  // open Space, an invitation then joining an invite Space, a request admitted by the Owner.
  const authorActors = await Promise.all(authors.map(actorOf));
  const spaceRank = zipf(SPACES, 0.8, random(11));
  for (let i = 0; i < authors.length; i += 200) {
    await db.transaction(async (tx) => {
      for (const [offset, actor] of authorActors.slice(i, i + 200).entries()) {
        const handle = authors[i + offset]!;
        const ranks = new Set<number>();
        while (ranks.size < 5) ranks.add(spaceRank());
        for (const rank of ranks) {
          const slug = slugs[rank]!;
          const policy = policyOf(rank);
          if (policy === 'invite') await invite(tx, owner, slug, handle);
          await joinSpace(tx, actor, slug);
          if (policy === 'request') await decideJoinRequest(tx, owner, slug, handle, 'admit');
        }
      }
    });
  }
  // The searching member: admitted to the three busiest invite Spaces.
  const searcherSpaces = slugs.filter((_, rank) => policyOf(rank) === 'invite').slice(0, 3);
  const searcher = await actorOf('bench-searcher');
  for (const slug of searcherSpaces) {
    await db.transaction((tx) => invite(tx, owner, slug, 'bench-searcher'));
    await db.transaction((tx) => joinSpace(tx, searcher, slug));
  }
  progress(`${SPACES} Spaces, ${authors.length * 5 + searcherSpaces.length} admissions`);

  const next = random(7);
  const write = proseWriter(next, vocabulary(VOCABULARY_SIZE, random(1)));
  const creators = authorActors.slice(0, 200);
  const tasksBySpace = new Map<string, number[]>();
  const resources: Array<{ id: string; slug: string; author: Actor }> = [];
  let tasksMade = 0;
  let resourcesMade = 0;
  let versionsMade = 0;
  /** Tasks and Resources up to `share` of their totals: in open Spaces by an author, elsewhere by the Owner. */
  const createRecords = async (share: number): Promise<void> => {
    const tasks = Math.round(TASKS * share) - tasksMade;
    const newResources = Math.round(RESOURCES * share) - resourcesMade;
    if (tasks <= 0 && newResources <= 0) return;
    const creator = (rank: number): Actor => (policyOf(rank) === 'open' ? creators[Math.floor(next() * creators.length)]! : owner);
    await db.transaction(async (tx) => {
      for (let i = 0; i < tasks; i++) {
        const rank = Math.floor(next() * SPACES);
        const slug = slugs[rank]!;
        const task = await createTask(tx, creator(rank), slug, { kind: 'general', title: write(4 + Math.floor(next() * 6)), body: write(20 + Math.floor(next() * 60)) });
        tasksBySpace.set(slug, [...(tasksBySpace.get(slug) ?? []), task.id]);
      }
      for (let i = 0; i < newResources; i++) {
        const rank = Math.floor(next() * SPACES);
        const slug = slugs[rank]!;
        const author = creator(rank);
        const text = `# ${write(4)}\n\n${Array.from({ length: 4 + Math.floor(next() * 12) }, () => write(40 + Math.floor(next() * 60))).join('\n\n')}\n`;
        const created = await createResource(tx, author, slug, { name: write(3), content: prepareContent(text, undefined, config.resourceMaxBytes) });
        resources.push({ id: created.id, slug, author });
      }
      // A quarter of the Resources get a second version, some time after the first.
      while (versionsMade < Math.floor(resources.length / 4)) {
        const resource = resources[versionsMade * 4]!;
        const text = `# ${write(4)}\n\n${write(300)}\n`;
        await addVersion(tx, resource.author, resource.slug, resource.id, { content: prepareContent(text, undefined, config.resourceMaxBytes) });
        versionsMade += 1;
      }
    });
    tasksMade += tasks;
    resourcesMade += newResources;
  };

  // Messages, in posting order, a transaction per batch.
  const k = db.kysely;
  const searcherEvery = Math.max(1, Math.floor(MESSAGES / SEARCHER_DIRECT));
  const stream = messages(MESSAGES);
  let written = 0;
  // The operator query's author: the twentieth busiest, about one message in 160.
  const from = authors[19]!;
  let fromMessages = 0;
  while (written < MESSAGES) {
    const drafts: MessageDraft[] = [];
    // Not for-of: leaving one closes the generator.
    while (drafts.length < PER_TRANSACTION) {
      const drawn = stream.next();
      if (drawn.done) break;
      drafts.push(drawn.value);
    }
    const firstMs = START + Math.floor((written / MESSAGES) * (END - START));
    clockMs = firstMs - 1;
    await createRecords(written / MESSAGES);
    await k.transaction().execute(async (trx) => {
      // The sequencer's own lock: nothing numbers events while this batch does.
      if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${SEQUENCING_LOCK_NAMESPACE}, hashtext(current_schema()))`.execute(trx);
      const ids = await trx
        .selectFrom('messages')
        .select((eb) => eb.fn.coalesce(eb.fn.max('id'), sql<number>`0`).as('id'))
        .executeTakeFirstOrThrow();
      const head = await trx
        .selectFrom('events')
        .select((eb) => eb.fn.coalesce(eb.fn.max('cursor'), sql<number>`0`).as('cursor'))
        .executeTakeFirstOrThrow();
      const rows = drafts.map((draft, i) => {
        const index = written + i;
        const slug = slugs[draft.spaceRank]!;
        let author = authors[draft.authorRank]!;
        let other = draft.directRank === null ? null : authors[draft.directRank]!;
        let space = slug;
        // The searching member's conversations, in its Spaces.
        if (index % searcherEvery === 0) {
          other = author;
          author = 'bench-searcher';
          space = searcherSpaces[index % searcherSpaces.length]!;
        }
        const tasks = tasksBySpace.get(space);
        const task = other === null && draft.discussion && tasks ? tasks[index % tasks.length]! : null;
        const direct = other === null ? null : author < other ? [author, other] : [other, author];
        return {
          id: Number(ids.id) + i + 1,
          space,
          channel: direct === null && task === null ? 'general' : null,
          task_id: task,
          direct_member_a: direct?.[0] ?? null,
          direct_member_b: direct?.[1] ?? null,
          author,
          body: draft.body,
          mentioned_members: JSON.stringify(other === null ? [] : [other]),
          created_ts: new Date(START + Math.floor(((index + 0.5) / MESSAGES) * (END - START))).toISOString(),
        };
      });
      fromMessages += rows.filter((row) => row.author === from).length;
      await insertAll(trx, 'messages', rows);
      await writeDocuments(trx, dialect, rows.map(messageDocument), 'fail');
      const events = rows.map((row, i) => {
        const other = row.direct_member_a === null ? null : row.direct_member_a === row.author ? row.direct_member_b : row.direct_member_a;
        const payload = {
          message_id: row.id,
          channel: row.channel,
          task: row.task_id,
          author: row.author,
          body: row.body,
          mentioned_members: other === null ? [] : [other],
          ...(row.direct_member_a !== null ? { direct_members: [row.direct_member_a, row.direct_member_b] } : {}),
        };
        const subjects = [
          `space:${row.space}`,
          ...(row.channel !== null ? [`channel:${row.channel}`] : row.task_id !== null ? [`task:${row.task_id}`] : []),
          `message:${row.id}`,
          ...(other === null ? [] : [`member:mentioned:${other}`]),
        ];
        return {
          cursor: Number(head.cursor) + i + 1,
          type: 'message_posted',
          space: row.space,
          actor: row.author,
          subjects: JSON.stringify(subjects),
          payload: JSON.stringify(storedPayload('message_posted', payload)),
          audience: row.direct_member_a === null ? null : JSON.stringify([row.direct_member_a, row.direct_member_b]),
          created_ts: row.created_ts,
        };
      });
      await insertAll(trx, 'events', events);
      await insertAll(
        trx,
        'event_subjects',
        events.flatMap((event) => (JSON.parse(event.subjects) as string[]).map((subject) => ({ subject, cursor: event.cursor }))),
      );
      await insertAll(
        trx,
        'event_audience',
        events.flatMap((event) => (event.audience === null ? [] : (JSON.parse(event.audience) as string[]).map((member) => ({ cursor: event.cursor, member })))),
      );
    });
    written += drafts.length;
    if (written % 100_000 === 0 || written === MESSAGES) progress(`${written} messages`);
  }
  clockMs = END;
  await createRecords(1);
  if (dialect === 'postgres') await sql`select setval(pg_get_serial_sequence('messages', 'id'), (select max(id) from messages))`.execute(k);

  // Every record was indexed as it was written, as on a host that always had the index:
  // the backfill has nothing to walk (a node's start would otherwise look at every message again).
  await k.transaction().execute(async (trx) => {
    for (const [kind, table] of [
      ['message', 'messages'],
      ['task', 'tasks'],
    ] as const) {
      const { highest } = await trx
        .selectFrom(table)
        .select((eb) => eb.fn.coalesce(eb.fn.max('id'), sql<number>`0`).as('highest'))
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('search_backfill')
        .set({ bound: Number(highest), walked_low: 0, walked_high: Number(highest), finished_ts: new Date().toISOString() })
        .where('kind', '=', kind)
        .execute();
    }
    await trx.updateTable('search_backfill').set({ finished_ts: new Date().toISOString() }).where('kind', '=', 'resource').execute();
  });
  // SQLite: the documents of records written through the services (tasks) may still wait to be
  // moved into the index (src/search/pending.ts); a checkout from before that has no such table.
  if (existsSync(join(root!, 'src', 'search', 'pending.ts'))) {
    const { movePendingBeforeReading } = await load<Pending>('search/pending.ts');
    await movePendingBeforeReading(db);
  }
  const counted = async (table: 'messages' | 'tasks' | 'resources' | 'search_documents') =>
    Number((await k.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const counts = { messages: await counted('messages'), tasks: await counted('tasks'), resources: await counted('resources'), documents: await counted('search_documents') };
  if (counts.documents !== counts.messages + counts.tasks + counts.resources) throw new Error(`the index holds ${counts.documents} documents for ${JSON.stringify(counts)}`);
  progress(`${counts.messages} messages, ${counts.tasks} tasks, ${counts.resources} Resources indexed`);

  // What the database would have done by itself after such a load: PostgreSQL's autovacuum
  // analyses every table (the planner needs their statistics: without those of `spaces`, it
  // runs the terms' index scan once per public Space), and SQLite checkpoints its WAL.
  if (dialect === 'postgres') {
    const tables = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(k);
    for (const { name } of tables.rows) await sql`vacuum analyze ${sql.table(name)}`.execute(k);
  } else {
    await sql`pragma wal_checkpoint(truncate)`.execute(k);
  }
  const size = await indexSize(k);
  progress('sizes measured');

  // Credentials last, at the real time, so none has expired by the time the scenarios run.
  clockMs = Date.now();
  const session = (await db.transaction((tx) => startSession(tx, 'bench-owner'))).token;
  const searcherKey = (await db.transaction((tx) => mintMemberKey(tx, 'bench-searcher', 'client_activation', 'bench'))).key;
  const writerKeys: string[] = [];
  for (const handle of writers) writerKeys.push((await db.transaction((tx) => mintMemberKey(tx, handle, 'client_activation', 'bench'))).key);

  const after = new Date(START + 365 * DAY).toISOString().slice(0, 10);
  process.stdout.write(
    `${JSON.stringify({
      session,
      searcher: searcherKey,
      writers: writerKeys,
      postSpace: slugs[0],
      from,
      fromMessages,
      after,
      searcherSpaces,
      counts,
      size,
      seconds: Math.round((performance.now() - started) / 1000),
    })}\n`,
  );
} finally {
  await ctx.close();
}

/** Inserts rows in statements of at most ~30,000 parameters (SQLite allows 32,766 and PostgreSQL 65,535). */
async function insertAll<T extends keyof DatabaseSchema & string>(trx: Kysely<DatabaseSchema>, table: T, rows: Array<Record<string, unknown>>): Promise<void> {
  if (rows.length === 0) return;
  const per = Math.max(1, Math.floor(30_000 / Object.keys(rows[0]!).length));
  for (let i = 0; i < rows.length; i += per) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await trx.insertInto(table).values(rows.slice(i, i + per) as any).execute();
  }
}

/**
 * The index's size in bytes, by part. SQLite: pages of `search_documents`, its
 * indexes and the FTS5 table's shadow tables (dbstat). PostgreSQL: the table with
 * its TOAST (the tsvector column lives there when long), the GIN index and the others.
 * The messages table and its indexes are given beside it for scale.
 */
async function indexSize(k: Kysely<DatabaseSchema>): Promise<Record<string, number>> {
  if (dialect === 'sqlite') {
    const rows = (await sql<{ name: string; bytes: number }>`select name, sum(pgsize) as bytes from dbstat group by name`.execute(k)).rows;
    const sum = (match: (name: string) => boolean) => rows.filter((r) => match(r.name)).reduce((total, r) => total + Number(r.bytes), 0);
    const documentIndexes = (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'search_documents'`.execute(k)).rows.map((r) => r.name);
    const messageIndexes = (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'messages'`.execute(k)).rows.map((r) => r.name);
    return {
      documents: sum((n) => n === 'search_documents'),
      documentIndexes: sum((n) => documentIndexes.includes(n)),
      terms: sum((n) => n.startsWith('search_terms')),
      messagesWithIndexes: sum((n) => n === 'messages' || messageIndexes.includes(n)),
    };
  }
  const one = async (query: RawBuilder<{ bytes: string }>) => Number((await query.execute(k)).rows[0]!.bytes);
  return {
    documents: await one(sql`select pg_table_size('search_documents') as bytes`),
    documentIndexes: await one(sql`select coalesce(sum(pg_relation_size(indexrelid)), 0) as bytes from pg_index where indrelid = 'search_documents'::regclass and indexrelid <> 'search_documents_terms_idx'::regclass`),
    terms: await one(sql`select pg_relation_size('search_documents_terms_idx') as bytes`),
    messagesWithIndexes: await one(sql`select pg_total_relation_size('messages') as bytes`),
  };
}
