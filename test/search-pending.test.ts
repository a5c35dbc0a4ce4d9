import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createLogger } from '../src/logger.js';
import { PendingDocumentMover } from '../src/search/pending.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';

/**
 * New documents on SQLite wait in `search_pending_documents` until they are
 * moved into the index, many commits' worth at a time (docs/search-index.md,
 * "New documents on SQLite"). Whatever reads or changes the index moves them
 * first, so a search is as exact as if each write had indexed itself. Here
 * the node's background move is stopped, so every document a test writes is
 * still pending when the next step reads or changes it; the cases run on
 * PostgreSQL too, where writes index themselves and nothing is pending.
 */
for (const backend of backends()) {
  describe(`search documents not yet moved into the index (${backend})`, () => {
    let server: TestServer;
    let ana: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend);
      ana = await server.human('ana');
      await activeSpace(server, ana.session, 'yard');
      await server.app.searchBackfill.settled();
      await server.app.pendingDocuments.stop();
    });
    after(() => server.stop());

    const kysely = () => server.app.ctx.db.kysely;
    const pending = async (): Promise<string[]> =>
      backend === 'sqlite'
        ? (await sql<{ record_key: string }>`select record_key from search_pending_documents order by id`.execute(kysely())).rows.map((r) => r.record_key)
        : [];
    const indexed = async (key: string): Promise<number> =>
      Number((await kysely().selectFrom('search_documents').select((eb) => eb.fn.countAll().as('n')).where('record_key', '=', key).executeTakeFirstOrThrow()).n);
    /** FTS5 rows of a record's documents (SQLite), which must be one per document. */
    const termRows = async (key: string): Promise<number> =>
      backend === 'sqlite'
        ? Number(
            (await sql<{ n: number }>`select count(*) as n from search_terms where rowid in (select id from search_documents where record_key = ${key})`.execute(kysely())).rows[0]!
              .n,
          )
        : 0;
    const found = async (q: string): Promise<number[]> => {
      const res = await server.request('GET', `/v0/search?${new URLSearchParams({ q }).toString()}`, { token: ana.session });
      assert.equal(res.status, 200);
      return (res.body.results as Array<{ id: number }>).map((r) => r.id);
    };
    const post = async (body: string): Promise<number> => {
      const res = await server.request('POST', '/v0/spaces/yard/channels/general/messages', { token: ana.session, body: { body } });
      assert.equal(res.status, 201);
      return res.body.id as number;
    };

    it('finds a message whose document is still pending, and the search leaves none pending', async () => {
      const id = await post('the wheelbarrow leans on the shed');
      if (backend === 'sqlite') assert.deepEqual(await pending(), [`message:${id}`]);
      assert.equal(await indexed(`message:${id}`), backend === 'sqlite' ? 0 : 1);
      assert.deepEqual(await found('wheelbarrow'), [id]);
      assert.deepEqual(await pending(), []);
      assert.equal(await indexed(`message:${id}`), 1);
      if (backend === 'sqlite') assert.equal(await termRows(`message:${id}`), 1);
    });

    it('an edit of a message whose document is pending leaves one document, saying what the edit says', async () => {
      const id = await post('the compost wants turning');
      const edited = await server.request('PATCH', `/v0/spaces/yard/messages/${id}`, { token: ana.session, body: { body: 'the mulch wants spreading', expected_version: 1 } });
      assert.equal(edited.status, 200);
      assert.deepEqual(await pending(), []);
      assert.equal(await indexed(`message:${id}`), 1);
      if (backend === 'sqlite') assert.equal(await termRows(`message:${id}`), 1);
      assert.deepEqual(await found('mulch'), [id]);
      assert.deepEqual(await found('compost'), []);
    });

    it('a deletion of a message whose document is pending leaves no document and no terms', async () => {
      const id = await post('the rake has a loose tine');
      assert.equal((await server.request('DELETE', `/v0/spaces/yard/messages/${id}`, { token: ana.session })).status, 200);
      assert.deepEqual(await pending(), []);
      assert.equal(await indexed(`message:${id}`), 0);
      assert.equal(await termRows(`message:${id}`), 0);
      assert.deepEqual(await found('tine'), []);
    });

    it('finds a task whose document is pending by its title, beside messages pending before and after it', async () => {
      const first = await post('seedlings in the cold frame');
      const task = await server.request('POST', '/v0/spaces/yard/tasks', { token: ana.session, body: { kind: 'general', title: 'harden off the seedlings' } });
      assert.equal(task.status, 201);
      const last = await post('seedlings watered twice');
      if (backend === 'sqlite') assert.deepEqual(await pending(), [`message:${first}`, `task:${task.body.id}`, `message:${last}`]);
      const res = await server.request('GET', `/v0/search?${new URLSearchParams({ q: 'seedlings', sort: 'newest' }).toString()}`, { token: ana.session });
      assert.deepEqual(
        (res.body.results as Array<{ kind: string; id: number }>).map((r) => `${r.kind}:${r.id}`),
        [`message:${last}`, `task:${task.body.id}`, `message:${first}`],
      );
    });

    /** Resolves once `holds` is true: checked now and after each commit of the node (the move commits). */
    const afterCommitsUntil = (holds: () => Promise<boolean>): Promise<void> =>
      new Promise((resolve, reject) => {
        const check = () =>
          void holds().then((yes) => {
            if (!yes) return;
            stop();
            resolve();
          }, reject);
        const stop = server.app.ctx.db.onCommitted(check);
        check();
      });
    const movedIn = (key: string) => async () => (await pending()).length === 0 && (await indexed(key)) === 1;

    it("a node's background move takes in what an earlier run left pending, at its start, and what later commits write", async () => {
      const leftOver = `message:${await post('the hose reel squeaks')}`;
      if (backend === 'sqlite') assert.deepEqual(await pending(), [leftOver]);
      // A node starting on this database, with no search or write to come.
      const mover = new PendingDocumentMover(server.app.ctx.db, createLogger('silent'));
      mover.start();
      await afterCommitsUntil(movedIn(leftOver));

      const next = `message:${await post('the hose reel fixed')}`;
      await afterCommitsUntil(movedIn(next));
      await mover.stop();
      assert.deepEqual(await pending(), []);
    });
  });
}
