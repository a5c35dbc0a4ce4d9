import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ContractPage } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type Person, type TestServer } from './support/server.js';

/**
 * Long polls (`wait`) on the Space feed, the inbox and the host-wide feed
 * (docs/events.md, "Read rules"): an empty page is held until an event of that
 * feed commits, on this node or another one of the same database, and then
 * read as usual. No test here waits on time: a poll is started, the write that
 * should end it is made, and what the poll answers is checked.
 */
for (const backend of backends()) {
  describe(`Long-polling feeds (${backend})`, () => {
    let first: TestServer;
    /** Another node on the same database (PostgreSQL); the same node on SQLite, which is one node by construction. */
    let second: TestServer;
    let alice: Person;
    let bob: Person;
    let carol: Person;

    before(async () => {
      first = await startServer(backend);
      second = backend === 'postgres' ? await startServer(backend, { shareWith: first }) : first;
      alice = await first.human('alice', { role: 'owner' });
      bob = await first.human('bob');
      carol = await first.human('carol');
      assert.equal((await first.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'porch', name: 'Porch' } })).status, 201);
      assert.equal((await first.request('POST', '/v0/spaces/porch/approve', { token: alice.session })).status, 200);
      for (const who of [alice, bob, carol]) assert.equal((await first.request('POST', '/v0/spaces/porch/join', { token: who.session })).status, 200);
    });
    after(async () => {
      if (second !== first) await second.stop();
      await first.stop();
    });

    const head = async (server: TestServer, path: string, token?: string): Promise<number> => {
      let since = 0;
      for (;;) {
        const res = await server.request('GET', `${path}${path.includes('?') ? '&' : '?'}since=${since}&limit=500`, token ? { token } : {});
        assert.equal(res.status, 200);
        if (res.body.events.length === 0) return since;
        since = res.body.cursor;
      }
    };
    const post = (who: Person, body: string) =>
      first.request('POST', '/v0/spaces/porch/channels/general/messages', { token: who.session, body: { body } });

    it('answers a waiting Space feed reader, on another node, as soon as an event of that Space commits', async () => {
      const since = await head(second, '/v0/spaces/porch/events');
      const poll = second.request('GET', `/v0/spaces/porch/events?since=${since}&wait=30`);
      assert.equal((await post(bob, 'the kettle is on')).status, 201);
      const page: ContractPage = (await poll).body;
      assert.equal(page.events.length, 1);
      assert.equal(page.events[0]!.payload.body, 'the kettle is on');
      assert.equal(page.cursor, page.events[0]!.cursor);
    });

    it('keeps waiting through events the reader may not see, and answers with the next one it may', async () => {
      const since = await head(second, '/v0/spaces/porch/events', alice.session);
      const poll = second.request('GET', `/v0/spaces/porch/events?since=${since}&wait=30`, { token: alice.session });
      // A direct message between bob and carol is an event of the Space that alice may not read.
      const dm = await first.request('POST', '/v0/spaces/porch/direct-messages', { token: bob.session, body: { to: 'carol', body: 'just us' } });
      assert.equal(dm.status, 201);
      assert.equal((await post(carol, 'for everyone')).status, 201);
      const page: ContractPage = (await poll).body;
      assert.deepEqual(
        page.events.map((e) => e.payload.body),
        ['for everyone'],
      );
    });

    it('answers a waiting inbox with a mention, and ignores what is not addressed to its owner', async () => {
      const since = await head(second, '/v0/me/inbox-events', carol.session);
      const poll = second.request('GET', `/v0/me/inbox-events?since=${since}&wait=30`, { token: carol.session });
      assert.equal((await post(alice, 'a note for @bob')).status, 201);
      assert.equal((await post(alice, 'and one for @carol')).status, 201);
      const page: ContractPage = (await poll).body;
      assert.deepEqual(
        page.events.map((e) => e.payload.body),
        ['and one for @carol'],
      );
    });

    it('answers a waiting host-wide feed with an event of no Space', async () => {
      const since = await head(second, '/v0/events', STEWARD_KEY);
      const poll = second.request('GET', `/v0/events?since=${since}&wait=30`, { token: STEWARD_KEY });
      assert.equal((await first.request('POST', '/v0/agents', { body: { handle: 'helper-bot', operator: 'bob' } })).status, 201);
      const page: ContractPage = (await poll).body;
      assert.deepEqual(
        page.events.map((e) => e.type),
        ['member_registered'],
      );
    });

    it('answers at once when the page is not empty, and with an empty page keeping `since` when nothing comes', async () => {
      const since = await head(first, '/v0/spaces/porch/events');
      const waiting = await first.request('GET', `/v0/spaces/porch/events?since=${since - 1}&wait=30`);
      assert.equal(waiting.body.events.length, 1);
      const quiet = await first.request('GET', `/v0/spaces/porch/events?since=${since}&wait=1`);
      assert.deepEqual(quiet.body.events, []);
      assert.equal(quiet.body.cursor, since);
    });

    it('refuses a wait beyond 30 seconds, or not an integer, with 422', async () => {
      for (const wait of ['31', '-1', '1.5', 'soon']) {
        const res = await first.request('GET', `/v0/spaces/porch/events?wait=${wait}`);
        assert.equal(res.status, 422, wait);
      }
    });
  });

  describe(`Long polls when a node shuts down (${backend})`, () => {
    it('answers every waiting reader when its node closes, instead of holding the shutdown', async () => {
      const server = await startServer(backend);
      const owner = await server.human('olga', { role: 'owner' });
      assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'attic', name: 'Attic' } })).status, 201);
      const since = (await server.request('GET', '/v0/spaces/attic/events')).body.cursor as number;
      const polls = [1, 2, 3].map(() => server.request('GET', `/v0/spaces/attic/events?since=${since}&wait=30`));
      // The polls are held on the node: it reports them as waiters before it is closed.
      while (server.app.ctx.events.tail.waiterCount < polls.length) await new Promise<void>((resolve) => setImmediate(resolve));
      const stopped = server.stop();
      for (const page of await Promise.all(polls)) {
        assert.equal(page.status, 200);
        assert.deepEqual(page.body.events, []);
        assert.equal(page.body.cursor, since);
      }
      await stopped;
    });
  });
}
