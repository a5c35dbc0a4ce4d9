import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedAgent } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

// The inbox read mark (docs/messages.md, "Inbox"): kept by the host per member,
// so every device agrees on what is unread; it only ever moves forward.
for (const backend of backends()) {
  describe(`inbox read mark (${backend})`, () => {
    let server: TestServer;
    let ada: { handle: string; session: string };
    let ben: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada');
      ben = await server.human('ben');
      await activeSpace(server, ada.session, 'garden');
      for (const who of [ada, ben]) assert.equal((await server.request('POST', '/v0/spaces/garden/join', { token: who.session })).status, 200);
    });
    after(() => server?.stop());

    const mark = (token: string, cursor: number) => server.request('POST', '/v0/me/inbox-read', { token, body: { cursor } });
    const state = (token: string) => server.request('GET', '/v0/me/inbox-read', { token });

    it('starts at 0, moves to the cursor a reader marks, and never back', async () => {
      assert.deepEqual((await state(ben.session)).body, { cursor: 0, updated_ts: null });
      for (const n of [1, 2]) {
        const posted = await server.request('POST', '/v0/spaces/garden/channels/general/messages', { token: ada.session, body: { body: `@ben note ${n}` } });
        assert.equal(posted.status, 201);
      }
      const inbox = await server.request('GET', '/v0/me/inbox-events?since=0', { token: ben.session });
      const [first, second] = inbox.body.events as Array<{ cursor: number }>;
      assert.ok(first && second);

      const moved = await mark(ben.session, second.cursor);
      assert.equal(moved.status, 200);
      assert.equal(moved.body.cursor, second.cursor);
      assert.match(moved.body.updated_ts, /Z$/);
      // An older tab marking what it saw leaves the mark where it is.
      const older = await mark(ben.session, first.cursor);
      assert.deepEqual(older.body, moved.body);
      assert.deepEqual((await state(ben.session)).body, moved.body);
      // Another device reads the same mark; unread is what the inbox holds above it.
      const unread = (await server.request('GET', `/v0/me/inbox-events?since=${moved.body.cursor}`, { token: ben.session })).body.events;
      assert.deepEqual(unread, []);
      // Each member has their own.
      assert.deepEqual((await state(ada.session)).body, { cursor: 0, updated_ts: null });
    });

    it('refuses a cursor beyond the newest event, and callers who have no inbox of their own', async () => {
      const head = Math.max(0, ...((await server.request('GET', '/v0/events?since=0&limit=500', { token: STEWARD_KEY })).body.events as Array<{ cursor: number }>).map((e) => e.cursor));
      const beyond = await mark(ben.session, head + 1000);
      assertError(beyond, 'cursor_beyond_head');
      assert.equal((await mark(ben.session, -1)).status, 422);
      assert.equal((await server.request('POST', '/v0/me/inbox-read', { token: ben.session, body: { cursor: 1, extra: true } })).status, 422);
      assert.equal((await server.request('GET', '/v0/me/inbox-read')).status, 401);
      assert.equal((await state(STEWARD_KEY)).status, 403);

      // An agent's key marks the agent's own inbox, never its operator's.
      const agent = await seedAgent(server, 'ben-bot', 'ben', 'active', { confirmed: true });
      const before = (await state(ben.session)).body;
      assert.equal((await mark(agent.key, 1)).body.cursor, 1);
      assert.deepEqual((await state(ben.session)).body, before);
    });
  });
}
