// Seeds (or grows) the scale group's database with the Atrium checkout given on
// the command line, up to the number of events in the Space's log given last.
// The first run lays out what every size shares: a Space `scale` with 10,000
// admitted members, a Space `elsewhere`, a member `scale-reader` whose inbox
// holds 100,000 mentions (all in `elsewhere`, older than anything in `scale`:
// the inbox's newest entries lie below the whole of the Space's log), sixteen
// writers with member keys, and a Resource. Each run then appends
// `message_posted` events to `scale` until its log holds the size asked for:
// channel posts by its members, 2% direct messages, 1% mentioning a member.
// Prints one JSON line: the credentials and the cursors the scenarios read from.
//
// The Spaces, the reader, the writers and the Resource go through the services.
// The members, their memberships and the events are written in bulk, 50,000
// events to a transaction, as rows cloned from ones the services wrote (a
// member, a membership) or as the services write them (messages, their events,
// subjects and audiences; on PostgreSQL straight into `events` with cursors
// after the head, under the sequencer's lock, as search-seed.ts does).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { random } from './search-corpus.js';

type App = typeof import('../src/app.js');
type Config = typeof import('../src/config.js');
type Logger = typeof import('../src/logger.js');
type MemberKeys = typeof import('../src/identity/member-keys.js');
type Members = typeof import('../src/members/service.js');
type Roles = typeof import('../src/roles/service.js');
type Spaces = typeof import('../src/spaces/service.js');
type Admission = typeof import('../src/spaces/admission.js');
type Resources = typeof import('../src/resources/service.js');
type StoredOnce = typeof import('../src/events/stored-once.js');
type Sequencer = typeof import('../src/events/sequencer.js');
type Actor = import('../src/identity/actor.js').Actor;
type DatabaseSchema = import('../src/storage/schema.js').DatabaseSchema;

const [, , root, databaseUrl, dataDir, size] = process.argv;
const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(root!, 'src', path)).href) as Promise<T>;

const { createContext } = await load<App>('app.ts');
const { loadConfig } = await load<Config>('config.ts');
const { createLogger } = await load<Logger>('logger.ts');
const { mintMemberKey } = await load<MemberKeys>('identity/member-keys.ts');
const { createHuman, getMember } = await load<Members>('members/service.ts');
const { assignRole } = await load<Roles>('roles/service.ts');
const { proposeSpace, transitionSpace } = await load<Spaces>('spaces/service.ts');
const { join: joinSpace } = await load<Admission>('spaces/admission.ts');
const { createResource, prepareContent } = await load<Resources>('resources/service.ts');
const { storedPayload } = await load<StoredOnce>('events/stored-once.ts');
const { SEQUENCING_LOCK_NAMESPACE } = await load<Sequencer>('events/sequencer.ts');

const TARGET = Number(size);
const MEMBERS = 10_000;
const INBOX = Number(process.env.ATRIUM_BENCH_SCALE_INBOX ?? 100_000);
const PER_TRANSACTION = 50_000;
const SPACE = 'scale';
const ELSEWHERE = 'elsewhere';
const READER = 'scale-reader';
const DAY = 86_400_000;

const config = loadConfig({ ATRIUM_DATABASE_URL: databaseUrl });
config.dataDir = dataDir!;
const ctx = await createContext(config, { log: createLogger('warn') });
const db = ctx.db;
const k = db.kysely;
const dialect = db.dialect;
const started = performance.now();
const progress = (what: string) => process.stderr.write(`  scale seed (${dialect}): ${what} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
const memberHandle = (i: number) => `member-${String(i).padStart(5, '0')}`;
/** The bulk members, the reader being the 10,000th. */
const BULK = MEMBERS - 1;

try {
  const fresh = (await k.selectFrom('spaces').select('slug').where('slug', '=', SPACE).executeTakeFirst()) === undefined;
  const credentials = fresh ? await layOut() : undefined;
  const next = random(TARGET);
  let spaceEvents = await countSpaceEvents();
  while (spaceEvents < TARGET) {
    const batch = Math.min(PER_TRANSACTION, TARGET - spaceEvents);
    await appendEvents(batch, (i) => {
      const author = memberHandle(Math.floor(next() * BULK));
      const roll = next();
      if (roll < 0.02) {
        let other = memberHandle(Math.floor(next() * BULK));
        if (other === author) other = READER;
        return { space: SPACE, author, direct: other, mention: null, body: `A direct note ${spaceEvents + i}, between two members.` };
      }
      const mention = roll < 0.03 ? memberHandle(Math.floor(next() * BULK)) : null;
      return { space: SPACE, author, direct: null, mention, body: `${mention ? `@${mention} ` : ''}Status note ${spaceEvents + i}: the work goes on.` };
    });
    spaceEvents += batch;
    if (spaceEvents % 200_000 === 0 || spaceEvents === TARGET) progress(`${spaceEvents} events in ${SPACE}`);
  }
  await settle();

  const cursorAt = async (space: string, offset: number) =>
    Number((await k.selectFrom('events').select('cursor').where('space', '=', space).orderBy('cursor').offset(offset).limit(1).executeTakeFirstOrThrow()).cursor);
  const inboxAt = async (offset: number) =>
    Number(
      (
        await k
          .selectFrom('event_subjects')
          .select('cursor')
          .where('subject', '=', `member:mentioned:${READER}`)
          .orderBy('cursor')
          .offset(offset)
          .limit(1)
          .executeTakeFirstOrThrow()
      ).cursor,
    );
  const total = Number((await k.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  process.stdout.write(
    `${JSON.stringify({
      ...credentials,
      space: SPACE,
      spaceEvents,
      events: total,
      // The Space's middle, and the inbox's: pages read from there are neither the first nor the newest.
      feedMiddle: await cursorAt(SPACE, Math.floor(spaceEvents / 2)),
      inboxMiddle: await inboxAt(Math.floor(INBOX / 2)),
      seconds: Math.round((performance.now() - started) / 1000),
    })}\n`,
  );
} finally {
  await ctx.close();
}

/** What every size shares; answers the credentials the scenarios use. */
async function layOut(): Promise<{ reader: string; writers: string[]; resource: string }> {
  const system = { system: 'admin_cli' } as const;
  const actorOf = async (handle: string): Promise<Actor> => ({ kind: 'member', member: await getMember(k, handle), credential: { type: 'session', id: 'seed' } });
  await db.transaction(async (tx) => {
    await createHuman(tx, system, { handle: 'bench-owner', email: 'bench-owner@example.test' });
    await assignRole(tx, system, { member: 'bench-owner', role: 'owner' });
  });
  const owner = await actorOf('bench-owner');
  for (const slug of [SPACE, ELSEWHERE]) {
    await db.transaction(async (tx) => {
      await proposeSpace(tx, owner, { slug, name: `Bench ${slug}`, join_policy: 'open' });
      await transitionSpace(tx, owner, slug, 'approve');
    });
  }
  const writerHandles = Array.from({ length: 16 }, (_, i) => `bench-writer-${i}`);
  await db.transaction(async (tx) => {
    for (const handle of [READER, ...writerHandles]) await createHuman(tx, system, { handle, email: `${handle}@example.test` });
  });
  const reader = await actorOf(READER);
  await db.transaction(async (tx) => {
    await joinSpace(tx, reader, SPACE);
    await joinSpace(tx, reader, ELSEWHERE);
  });
  const keyOf = async (handle: string) => (await db.transaction((tx) => mintMemberKey(tx, handle, 'client_activation', 'bench'))).key;
  const readerKey = await keyOf(READER);
  const writers: string[] = [];
  for (const handle of writerHandles) writers.push(await keyOf(handle));
  const text = `# Notes\n\n${'The plan, the people, and what comes next. '.repeat(90)}\n`;
  const resource = await db.transaction((tx) => createResource(tx, owner, SPACE, { name: 'Bench notes', content: prepareContent(text, undefined, config.resourceMaxBytes) }));

  // The other members, as clones of the reader's rows: whatever columns a member and a membership have in this checkout.
  const member = await k.selectFrom('members').selectAll().where('handle', '=', READER).executeTakeFirstOrThrow();
  const membership = await k.selectFrom('space_memberships').selectAll().where('space', '=', SPACE).where('member_handle', '=', READER).executeTakeFirstOrThrow();
  await k.transaction().execute(async (trx) => {
    const handles = Array.from({ length: BULK }, (_, i) => memberHandle(i));
    await insertAll(trx, 'members', handles.map((handle) => ({ ...member, handle, display_name: handle, email: `${handle}@example.test` })));
    await insertAll(trx, 'space_memberships', handles.map((handle) => ({ ...membership, member_handle: handle })));
  });
  progress(`${MEMBERS} members of ${SPACE}`);

  // The reader's inbox: mentions by the members, in the other Space, before the Space's own log.
  const next = random(3);
  for (let written = 0; written < INBOX; written += PER_TRANSACTION) {
    await appendEvents(Math.min(PER_TRANSACTION, INBOX - written), (i) => ({
      space: ELSEWHERE,
      author: memberHandle(Math.floor(next() * BULK)),
      direct: null,
      mention: READER,
      body: `@${READER} could you look at item ${written + i}?`,
    }));
  }
  progress(`${INBOX} mentions of ${READER}`);
  return { reader: readerKey, writers, resource: resource.id };
}

interface Draft {
  space: string;
  author: string;
  /** The other member of a direct message. */
  direct: string | null;
  /** The member a channel post mentions. */
  mention: string | null;
  body: string;
}

/** One transaction of `count` messages and their events, numbered after the head. */
async function appendEvents(count: number, draft: (i: number) => Draft): Promise<void> {
  await k.transaction().execute(async (trx) => {
    // The sequencer's own lock: nothing numbers events while this batch does.
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${SEQUENCING_LOCK_NAMESPACE}, hashtext(current_schema()))`.execute(trx);
    const ids = await trx.selectFrom('messages').select((eb) => eb.fn.coalesce(eb.fn.max('id'), sql<number>`0`).as('id')).executeTakeFirstOrThrow();
    const head = await trx.selectFrom('events').select((eb) => eb.fn.coalesce(eb.fn.max('cursor'), sql<number>`0`).as('cursor')).executeTakeFirstOrThrow();
    // Spread over the last year, in order.
    const now = Date.now() - DAY;
    const rows = Array.from({ length: count }, (_, i) => {
      const d = draft(i);
      const pair = d.direct === null ? null : d.author < d.direct ? [d.author, d.direct] : [d.direct, d.author];
      return {
        draft: d,
        message: {
          id: Number(ids.id) + i + 1,
          space: d.space,
          channel: pair === null ? 'general' : null,
          task_id: null,
          direct_member_a: pair?.[0] ?? null,
          direct_member_b: pair?.[1] ?? null,
          author: d.author,
          body: d.body,
          mentioned_members: JSON.stringify(d.direct ?? d.mention ? [d.direct ?? d.mention] : []),
          created_ts: new Date(now - (count - i) * 1000).toISOString(),
        },
      };
    });
    await insertAll(trx, 'messages', rows.map((r) => r.message));
    const events = rows.map(({ draft: d, message }, i) => {
      const other = d.direct ?? d.mention;
      const payload = {
        message_id: message.id,
        channel: message.channel,
        task: null,
        author: d.author,
        body: d.body,
        mentioned_members: other === null ? [] : [other],
        ...(message.direct_member_a !== null ? { direct_members: [message.direct_member_a, message.direct_member_b] } : {}),
      };
      const subjects = [
        `space:${d.space}`,
        ...(message.channel !== null ? [`channel:${message.channel}`] : []),
        `message:${message.id}`,
        ...(other === null ? [] : [`member:mentioned:${other}`]),
      ];
      return {
        cursor: Number(head.cursor) + i + 1,
        type: 'message_posted',
        space: d.space,
        actor: d.author,
        subjects: JSON.stringify(subjects),
        payload: JSON.stringify(storedPayload('message_posted', payload)),
        audience: message.direct_member_a === null ? null : JSON.stringify([message.direct_member_a, message.direct_member_b]),
        created_ts: message.created_ts,
      };
    });
    await insertAll(trx, 'events', events);
    await insertAll(trx, 'event_subjects', events.flatMap((event) => (JSON.parse(event.subjects) as string[]).map((subject) => ({ subject, cursor: event.cursor }))));
    await insertAll(
      trx,
      'event_audience',
      events.flatMap((event) => (event.audience === null ? [] : (JSON.parse(event.audience) as string[]).map((member) => ({ cursor: event.cursor, member })))),
    );
  });
}

async function countSpaceEvents(): Promise<number> {
  return Number((await k.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('space', '=', SPACE).executeTakeFirstOrThrow()).n);
}

/**
 * What a host that had written all this itself would hold: the message id
 * sequence past the bulk ids, the search backfill with nothing left to walk (the
 * bulk messages have no search documents, and the scale group searches nothing),
 * statistics (PostgreSQL's autovacuum analyses a table after such a load) and a
 * checkpointed WAL on SQLite.
 */
async function settle(): Promise<void> {
  if (dialect === 'postgres') await sql`select setval(pg_get_serial_sequence('messages', 'id'), (select max(id) from messages))`.execute(k);
  const { highest } = await k.selectFrom('messages').select((eb) => eb.fn.coalesce(eb.fn.max('id'), sql<number>`0`).as('highest')).executeTakeFirstOrThrow();
  const finished = new Date().toISOString();
  await k.updateTable('search_backfill').set({ bound: Number(highest), walked_low: 0, walked_high: Number(highest), finished_ts: finished }).where('kind', '=', 'message').execute();
  await k.updateTable('search_backfill').set({ finished_ts: finished }).where('kind', '!=', 'message').where('finished_ts', 'is', null).execute();
  if (dialect === 'postgres') {
    for (const table of ['events', 'event_subjects', 'event_audience', 'messages', 'members', 'space_memberships']) await sql`vacuum analyze ${sql.table(table)}`.execute(k);
  } else {
    await sql`pragma wal_checkpoint(truncate)`.execute(k);
  }
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
