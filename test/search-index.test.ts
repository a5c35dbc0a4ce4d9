import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { findMember } from '../src/members/service.js';
import { postMessage } from '../src/messages/service.js';
import { backfillBatch, extendBackfill, runBackfill, SearchBackfill } from '../src/search/backfill.js';
import { documentTerms, ftsColumn, MAX_POSITION, tsvectorLiteral, UNINDEXED } from '../src/search/document-terms.js';
import { MAX_TERM_LENGTH } from '../src/search/text.js';
import { resourceDocument, writeDocuments } from '../src/search/index-writes.js';
import { movePendingBeforeReading } from '../src/search/pending.js';
import { createLogger } from '../src/logger.js';
import { assertError } from './support/errors.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';

/**
 * The search index (docs/search-index.md): every write that creates a
 * searchable record writes its one document in the same transaction, the
 * terms are findable by the database's own full-text match, and the backfill
 * indexes what existed before, once, however often and on however many nodes
 * it runs. The tables are read directly: the search operation is not what is
 * under test here.
 */

interface Document {
  kind: string;
  record_key: string;
  space: string;
  channel: string | null;
  task_id: number | null;
  direct_member_a: string | null;
  direct_member_b: string | null;
  author: string;
  created_ts: string;
}

const SMALL = { rows: 2, resourceBytes: 1 };

/** 16,000 distinct terms of 64 characters: within the positions, past the bytes a tsvector may hold. */
const wideText = () => Array.from({ length: 16_000 }, (_, i) => `${String(i).padStart(6, '0')}${'z'.repeat(58)}`).join(' ');

for (const backend of backends()) {
  describe(`search index (${backend})`, () => {
    let server: TestServer;
    let alice: { handle: string; session: string };
    let bob: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_METRICS: 'on' } });
      alice = await server.human('alice');
      bob = await server.human('bob');
      await activeSpace(server, alice.session, 'plaza');
      assert.equal((await server.request('POST', '/v0/spaces/plaza/join', { token: bob.session })).status, 200);
      // The walk a fresh node starts with is over before anything here reads or resets it.
      await server.app.searchBackfill.settled();
    });
    after(() => server.stop());

    const db = () => server.app.ctx.db;

    /** The index as a search reads it: on SQLite, documents still pending go in first (src/search/pending.ts). */
    const settle = () => movePendingBeforeReading(db());

    const documents = async (): Promise<Document[]> => {
      await settle();
      const rows = await db()
        .kysely.selectFrom('search_documents')
        .select(['kind', 'record_key', 'space', 'channel', 'task_id', 'direct_member_a', 'direct_member_b', 'author', 'created_ts'])
        .orderBy('record_key')
        .execute();
      return rows.map((d) => ({ ...d, task_id: d.task_id === null ? null : Number(d.task_id) }));
    };

    const documentOf = async (key: string): Promise<Document | undefined> => (await documents()).find((d) => d.record_key === key);

    /**
     * The records whose terms hold `phrase` (consecutive terms), straight from
     * FTS5 or the tsvector; `title` only in titles; `prefix` the last term as a prefix.
     */
    const findable = async (phrase: string[], opts: { title?: boolean; prefix?: boolean } = {}): Promise<string[]> => {
      await settle();
      if (backend === 'sqlite') {
        const match = `${opts.title ? 'title : ' : ''}"${phrase.join(' ')}"${opts.prefix ? ' *' : ''}`;
        const rows = await sql<{ record_key: string }>`select d.record_key from search_terms s join search_documents d on d.id = s.rowid
          where search_terms match ${match} order by d.record_key`.execute(db().kysely);
        return rows.rows.map((r) => r.record_key);
      }
      const query = phrase
        .map((term, i) => `'${term}'${opts.prefix && i === phrase.length - 1 ? ':*' : ''}${opts.title ? (opts.prefix && i === phrase.length - 1 ? 'A' : ':A') : ''}`)
        .join(' <-> ');
      const rows = await sql<{ record_key: string }>`select record_key from search_documents where terms @@ ${query}::tsquery order by record_key`.execute(
        db().kysely,
      );
      return rows.rows.map((r) => r.record_key);
    };

    const count = async (): Promise<number> => (await documents()).length;

    /** Rows in the FTS5 table (SQLite), which must be exactly one per document. */
    const ftsRows = async (): Promise<number> => {
      await settle();
      return Number((await sql<{ n: number }>`select count(*) as n from search_terms`.execute(db().kysely)).rows[0]!.n);
    };

    const post = async (body: string, token = alice.session) => {
      const res = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token, body: { body } });
      assert.equal(res.status, 201);
      return res.body as { id: number; created_ts: string };
    };

    const createResource = async (name: string, content: string) => {
      const res = await server.request('POST', '/v0/spaces/plaza/resources', { token: alice.session, body: { name, content } });
      assert.equal(res.status, 201);
      return res.body as { id: string; created_ts: string; updated_ts: string };
    };

    it('indexes a channel message once, with its metadata, its terms folded and CJK findable as a phrase', async () => {
      const before = await count();
      const message = await post('Le **Café** ouvre à 東京 demain');
      assert.equal(await count(), before + 1);
      assert.deepEqual(await documentOf(`message:${message.id}`), {
        kind: 'message',
        record_key: `message:${message.id}`,
        space: 'plaza',
        channel: 'general',
        task_id: null,
        direct_member_a: null,
        direct_member_b: null,
        author: 'alice',
        created_ts: message.created_ts,
      });
      assert.deepEqual(await findable(['cafe']), [`message:${message.id}`], 'an accented word by its folded form');
      assert.deepEqual(await findable(['café']), [], 'the index holds only folded terms');
      assert.deepEqual(await findable(['東', '京']), [`message:${message.id}`], 'a CJK run, one term per character');
      assert.deepEqual(await findable(['京', '東']), [], 'a phrase is in order');
      assert.deepEqual(await findable(['ouvre', 'a', '東']), [`message:${message.id}`], 'Markdown and punctuation never reach the index');
      if (backend === 'sqlite') assert.equal(await ftsRows(), await count());
    });

    it('indexes a direct message with its two members sorted, and nothing else', async () => {
      const before = await count();
      const res = await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: bob.session, body: { to: 'alice', body: 'quietly whispered' } });
      assert.equal(res.status, 201);
      assert.equal(await count(), before + 1);
      assert.deepEqual(await documentOf(`message:${res.body.id}`), {
        kind: 'message',
        record_key: `message:${res.body.id}`,
        space: 'plaza',
        channel: null,
        task_id: null,
        direct_member_a: 'alice',
        direct_member_b: 'bob',
        author: 'bob',
        created_ts: res.body.created_ts,
      });
      assert.deepEqual(await findable(['quietly', 'whispered']), [`message:${res.body.id}`]);
    });

    it('indexes a task (title weighing as a title) and its discussion messages with their task', async () => {
      const before = await count();
      const created = await server.request('POST', '/v0/spaces/plaza/tasks', {
        token: alice.session,
        body: { kind: 'general', title: 'Fix the login', body: 'login fails after midnight' },
      });
      assert.equal(created.status, 201);
      const task = created.body as { id: number; created_ts: string };
      assert.equal(await count(), before + 1);
      assert.deepEqual(await documentOf(`task:${task.id}`), {
        kind: 'task',
        record_key: `task:${task.id}`,
        space: 'plaza',
        channel: null,
        task_id: null,
        direct_member_a: null,
        direct_member_b: null,
        author: 'alice',
        created_ts: task.created_ts,
      });
      assert.deepEqual(await findable(['fix'], { title: true }), [`task:${task.id}`]);
      assert.deepEqual(await findable(['midnight'], { title: true }), [], 'body terms are not title terms');
      assert.deepEqual(await findable(['fails', 'after', 'midnight']), [`task:${task.id}`]);
      assert.deepEqual(await findable(['login', 'login']), [], 'no phrase spans the title and the body');
      if (backend === 'postgres') {
        const { rows } = await sql<{ same: boolean }>`select terms = ${"'fix':1A 'the':2A 'login':3A,5 'fails':6 'after':7 'midnight':8"}::tsvector as same
          from search_documents where record_key = ${`task:${task.id}`}`.execute(db().kysely);
        assert.equal(rows[0]!.same, true, 'title at 1-3 weighing A, the body after a gap of one');
      }

      const discussed = await server.request('POST', `/v0/spaces/plaza/tasks/${task.id}/messages`, { token: bob.session, body: { body: 'reproduced at dawn' } });
      assert.equal(discussed.status, 201);
      assert.equal(await count(), before + 2);
      const document = await documentOf(`message:${discussed.body.id}`);
      assert.equal(document?.task_id, task.id);
      assert.equal(document?.channel, null);
      assert.equal(document?.author, 'bob');
      assert.deepEqual(await findable(['reproduced', 'at', 'dawn']), [`message:${discussed.body.id}`]);
    });

    it('indexes a pin proposal, which is a task', async () => {
      const resource = await createResource('Handbook', 'how we work');
      const before = await count();
      const res = await server.request('POST', '/v0/spaces/plaza/pin-proposals', {
        token: bob.session,
        body: { resource_id: resource.id, rationale: 'everyone needs the handbook' },
      });
      assert.equal(res.status, 201);
      assert.equal(await count(), before + 1);
      const document = await documentOf(`task:${res.body.id}`);
      assert.equal(document?.kind, 'task');
      assert.equal(document?.author, 'bob');
      assert.deepEqual(await findable(['needs', 'the', 'handbook']), [`task:${res.body.id}`]);
    });

    it("indexes a Resource once, and a new version replaces its document: title, text, author and time are the new version's", async () => {
      const before = await count();
      const resource = await createResource('Runbook draft', '# Steps\n\nRestart the *gateway* first.');
      assert.equal(await count(), before + 1);
      const key = `resource:${resource.id}`;
      assert.deepEqual(await documentOf(key), {
        kind: 'resource',
        record_key: key,
        space: 'plaza',
        channel: null,
        task_id: null,
        direct_member_a: null,
        direct_member_b: null,
        author: 'alice',
        created_ts: resource.created_ts,
      });
      assert.deepEqual(await findable(['restart', 'the', 'gateway']), [key]);
      assert.deepEqual(await findable(['draft'], { title: true }), [key]);

      const updated = await server.request('POST', `/v0/spaces/plaza/resources/${resource.id}/versions`, {
        token: bob.session,
        body: { name: 'Runbook final', content: 'Drain the node, then restart it.' },
      });
      assert.equal(updated.status, 201);
      assert.equal(await count(), before + 1, 'still one document');
      const document = await documentOf(key);
      assert.equal(document?.author, 'bob');
      assert.equal(document?.created_ts, updated.body.updated_ts);
      assert.deepEqual(await findable(['gateway']), [], "the old version's text is gone");
      assert.deepEqual(await findable(['draft'], { title: true }), []);
      assert.deepEqual(await findable(['final'], { title: true }), [key]);
      assert.deepEqual(await findable(['drain', 'the', 'node']), [key]);
      if (backend === 'sqlite') assert.equal(await ftsRows(), await count());
    });

    it('keeps the same limits on both databases: 256 places a term, 16,383 positions, 1 MiB a record, long runs cut to a term', async () => {
      const repeated = await createResource('Echoes', `${'echo '.repeat(300)}omega`);
      const key = `resource:${repeated.id}`;
      assert.deepEqual(await findable(['echo']), [key]);
      assert.deepEqual(await findable(['echo', 'echo']), [key], 'within the first 256 places');
      assert.deepEqual(await findable(['omega']), [key], 'the next term keeps its place and is found');
      assert.deepEqual(await findable(['echo', 'omega']), [], 'the 300th echo is not held, so no phrase runs through it');

      const words = Array.from({ length: MAX_POSITION + 100 }, (_, i) => `w${i}`);
      const long = await createResource('Long', words.join(' '));
      // Title "Long" takes position 1, the gap 2, so the body's nth term is at n + 2.
      assert.deepEqual(await findable([`w${MAX_POSITION - 3}`]), [`resource:${long.id}`], 'the last position held');
      assert.deepEqual(await findable([`w${MAX_POSITION - 2}`]), [], 'past the last position');

      const text = wideText();
      const kept = documentTerms('Wide', text).body.length;
      const wide = await createResource('Wide', text);
      const wideTerms = text.split(' ');
      assert.deepEqual(await findable([wideTerms[kept - 1]!]), [`resource:${wide.id}`], 'the last term within a tsvector of 1 MiB');
      assert.deepEqual(await findable([wideTerms[kept]!]), [], 'the first past it');

      // Past 2 KiB a lexeme is an error on PostgreSQL: the post must not fail.
      const huge = await post(`${'ab'.repeat(1500)} tail`);
      assert.deepEqual(await findable(['ab'.repeat(MAX_TERM_LENGTH / 2)]), [`message:${huge.id}`], 'cut to a term, found whole');
      assert.deepEqual(await findable(['ab'.repeat(10)], { prefix: true }), [`message:${huge.id}`], 'and by its start');
      assert.deepEqual(await findable(['tail']), [`message:${huge.id}`]);
    });

    it('writes nothing for a refused write, nor for one whose transaction fails after the post', async () => {
      const before = await count();
      assertError(await server.request('POST', '/v0/spaces/plaza/channels/nowhere/messages', { token: alice.session, body: { body: 'lost words' } }), 'channel_not_found');
      assert.equal((await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'draft', name: 'draft' } })).status, 201);
      assertError(await server.request('POST', '/v0/spaces/draft/channels/general/messages', { token: alice.session, body: { body: 'lost words' } }), 'space_not_active');
      assertError(
        await server.request('POST', '/v0/spaces/draft/tasks', { token: alice.session, body: { kind: 'general', title: 'lost words' } }),
        'space_not_active',
      );
      const member = (await findMember(db().kysely, 'alice'))!;
      const actor = { kind: 'member', member, credential: { type: 'session', id: 'test' } } as const;
      await assert.rejects(
        db().transaction(async (tx) => {
          await postMessage(tx, actor, 'plaza', { channel: 'general' }, { text: 'lost words', candidates: [] });
          // SQLite: written to the pending documents, which the index takes in after the commit (src/search/pending.ts).
          const pending = backend === 'sqlite' ? Number((await sql<{ n: number }>`select count(*) as n from search_pending_documents`.execute(tx.db)).rows[0]!.n) : 0;
          // PostgreSQL: the document goes with the unit's last statement (src/storage/together.ts), which a unit that fails never sends.
          const written = backend === 'sqlite' ? before + 1 : before;
          assert.equal((await tx.db.selectFrom('search_documents').select('id').execute()).length + pending, written, 'written inside the transaction');
          throw new Error('the unit of work fails after the post');
        }),
        /fails after the post/,
      );
      assert.equal(await count(), before);
      assert.deepEqual(await findable(['lost', 'words']), []);
      if (backend === 'sqlite') assert.equal(await ftsRows(), before);
    });

    /** What migration 0021 leaves on a host that had records and no index. */
    const forgetIndex = async () => {
      await settle();
      await db().kysely.deleteFrom('search_documents').execute();
      if (backend === 'sqlite') await sql`delete from search_terms`.execute(db().kysely);
      for (const [kind, table] of [
        ['message', 'messages'],
        ['task', 'tasks'],
      ] as const) {
        const { bound } = await db()
          .kysely.selectFrom(table)
          .select((eb) => eb.fn.max('id').as('bound'))
          .executeTakeFirstOrThrow();
        await db()
          .kysely.updateTable('search_backfill')
          .set({ bound: Number(bound), walked_low: Number(bound), walked_high: Number(bound), finished_ts: null })
          .where('kind', '=', kind)
          .execute();
      }
      await db().kysely.updateTable('search_backfill').set({ after_key: null, finished_ts: null }).where('kind', '=', 'resource').execute();
    };

    const assertOneEach = async (expected: Document[]) => {
      assert.deepEqual(await documents(), expected);
      const doubled = await db()
        .kysely.selectFrom('search_documents')
        .select('record_key')
        .groupBy('record_key')
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute();
      assert.deepEqual(doubled, []);
      if (backend === 'sqlite') assert.equal(await ftsRows(), expected.length);
    };

    const remaining = async (): Promise<Record<string, number>> => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Object.fromEntries([...text.matchAll(/^atrium_search_backfill_remaining\{kind="(\w+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
    };

    it('backfills what existed before the index, newest first, in batches, to the same documents', async () => {
      const indexed = await documents();
      assert.ok(indexed.filter((d) => d.kind === 'message').length >= 4 && indexed.some((d) => d.kind === 'resource'));
      assert.deepEqual(await remaining(), { message: 0, task: 0, resource: 0 });
      await forgetIndex();
      assert.equal(await count(), 0);
      const left = await remaining();
      assert.ok(left.message! >= 4 && left.task! >= 2 && left.resource! >= 3, JSON.stringify(left));

      const messageIds = indexed.filter((d) => d.kind === 'message').map((d) => Number(d.record_key.split(':')[1])).sort((a, b) => b - a);
      const first = await backfillBatch(db(), 'message', SMALL);
      assert.deepEqual(first, { written: 2, finished: false });
      assert.deepEqual(
        (await documents()).map((d) => d.record_key).sort(),
        messageIds.slice(0, 2).map((id) => `message:${id}`).sort(),
        'the two newest messages first',
      );
      const resources = await backfillBatch(db(), 'resource', SMALL);
      assert.equal(resources.written, 1, 'Resource text is read a batch of bytes at a time, one at least');

      assert.equal(await runBackfill(db(), SMALL), indexed.length - 3);
      await assertOneEach(indexed);
      assert.equal((await findable(['cafe'])).length, 1);
      assert.equal((await findable(['drain', 'the', 'node'])).length, 1);
      assert.deepEqual(await remaining(), { message: 0, task: 0, resource: 0 });

      assert.equal(await runBackfill(db(), SMALL), 0, 'a finished walk writes nothing');
      await extendBackfill(db());
      assert.equal(await runBackfill(db(), SMALL), 0, 'walking again finds nothing to write');
      await assertOneEach(indexed);

      // Relevance ranks the newest matches by document id: walking down, the backfill took ids
      // below every document's, so they rise with the records' age, and a record written now is above them all.
      const messageDocumentIds = async () => {
        await settle();
        const rows = await db().kysely.selectFrom('search_documents').select(['id', 'record_key']).where('kind', '=', 'message').execute();
        return rows.map((row) => ({ record: Number(row.record_key.split(':')[1]), document: Number(row.id) })).sort((a, b) => a.record - b.record);
      };
      const walked = await messageDocumentIds();
      assert.deepEqual(
        walked.map((row) => row.document),
        walked.map((row) => row.document).sort((a, b) => a - b),
      );
      const fresh = await post('written after the walk');
      const now = (await messageDocumentIds()).find((row) => row.record === fresh.id)!;
      assert.ok(walked.every((row) => row.document < now.document));
    });

    it("finds at a node's start what a node of the previous version wrote without documents, committed late or since, and Resources it left stale", async () => {
      const message = await post('written by an older node');
      const resource = await createResource('Old notes', 'first thoughts');
      const updated = await server.request('POST', `/v0/spaces/plaza/resources/${resource.id}/versions`, { token: bob.session, body: { content: 'second thoughts' } });
      assert.equal(updated.status, 201);
      const indexed = await documents();
      // An older node writes records and no documents: the message has none, the Resource the one of its first
      // version. And one of its messages, its id drawn before the last walk passed it, committed only after.
      const late = indexed.find((d) => d.kind === 'message' && d.record_key !== `message:${message.id}`)!.record_key;
      const gone = await db()
        .kysely.deleteFrom('search_documents')
        .where('record_key', 'in', [`message:${message.id}`, `resource:${resource.id}`, late])
        .returning('id')
        .execute();
      if (backend === 'sqlite') for (const { id } of gone) await sql`delete from search_terms where rowid = ${id}`.execute(db().kysely);
      await db().transaction(async (tx) => {
        const first = resourceDocument({
          id: resource.id,
          space: 'plaza',
          name: 'Old notes',
          mime_type: 'text/markdown',
          author: 'alice',
          created_ts: resource.created_ts,
          text: 'first thoughts',
        });
        await writeDocuments(tx.db, tx.dialect, [first!], 'fail');
      });
      assert.deepEqual(await findable(['first', 'thoughts']), [`resource:${resource.id}`]);

      await extendBackfill(db());
      assert.equal(await runBackfill(db(), SMALL), 3);
      await assertOneEach(indexed);
      assert.deepEqual(await findable(['first', 'thoughts']), []);
      assert.deepEqual(await findable(['second', 'thoughts']), [`resource:${resource.id}`]);
      assert.deepEqual(await findable(['older', 'node']), [`message:${message.id}`]);
    });

    it('gives each record one document when several walk at once', async () => {
      const indexed = await documents();
      await forgetIndex();
      // Two walkers on one database: two nodes' pools on PostgreSQL (the second node's own start walks too), one SQLite.
      const other = backend === 'postgres' ? await startServer(backend, { shareWith: server }) : undefined;
      try {
        const walkers = [runBackfill(db(), SMALL), runBackfill(other?.app.ctx.db ?? db(), SMALL), runBackfill(db(), { rows: 3, resourceBytes: 10 })];
        const written = (await Promise.all([...walkers, other?.app.searchBackfill.settled()])).slice(0, 3) as number[];
        if (!other) assert.equal(written.reduce((a, b) => a + b, 0), indexed.length, 'each document written once');
        await assertOneEach(indexed);
      } finally {
        await other?.stop();
      }
    });

    it('walks in the background at start and stops with the node, leaving the walk to resume', async () => {
      const indexed = await documents();
      await forgetIndex();
      const log = createLogger('silent');
      const walker = new SearchBackfill({ db: db(), log, metrics: { gauge: () => undefined } }, { rows: 1, resourceBytes: 1 });
      walker.start();
      await walker.stop();
      await runBackfill(db(), SMALL);
      await assertOneEach(indexed);

      if (backend === 'postgres') {
        await forgetIndex();
        const node = await startServer(backend, { shareWith: server });
        try {
          await node.app.searchBackfill.settled();
          await assertOneEach(indexed);
        } finally {
          await node.stop();
        }
      }
    });
  });
}

describe('document terms (the limits both databases share)', () => {
  it('places the title from 1 and the body after a gap, weighing the title A', () => {
    const terms = documentTerms('Fix it', 'it fails');
    assert.deepEqual(terms, { title: ['fix', 'it'], body: ['it', 'fails'] });
    assert.equal(tsvectorLiteral(terms), "'fix':1A 'it':2A,4 'fails':5");
  });

  it("holds a term's place past its 256th occurrence without indexing it", () => {
    const terms = documentTerms('', 'x '.repeat(258));
    assert.equal(terms.body.length, 258);
    assert.equal(terms.body.filter((t) => t === 'x').length, 256);
    assert.equal(ftsColumn(terms.body).split(' ').at(-1), UNINDEXED);
    assert.equal(tsvectorLiteral(terms).split(',').length, 256);
  });

  it('stops at position 16,383, and within a tsvector of 1 MiB', () => {
    const many = documentTerms('t', Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(' '));
    assert.equal(many.title.length + 1 + many.body.length, MAX_POSITION);
    const wide = documentTerms('', wideText());
    const bytes = wide.body.reduce((sum, t) => sum + Buffer.byteLength(t ?? ''), 0);
    assert.ok(wide.body.length < 16_000 && bytes <= 1_000_000, `${wide.body.length} terms, ${bytes} bytes`);
  });

  it('takes the terms of the term rule: emoji dropped, a long run one term cut to its length', () => {
    const terms = documentTerms('', `${'😀a '.repeat(9_000)}${'b'.repeat(40_000)} 😀c`);
    assert.deepEqual(terms.body.slice(0, 3), ['a', 'a', 'a']);
    assert.equal(terms.body.length, 9_002);
    assert.equal(terms.body.at(-2), 'b'.repeat(MAX_TERM_LENGTH));
    assert.equal(terms.body.at(-1), 'c');
  });
});
