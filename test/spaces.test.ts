import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

for (const backend of backends()) {
  describe(`Spaces (${backend})`, () => {
    let server: TestServer;
    let alice: { handle: string; session: string };
    let owner: { handle: string; session: string };
    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      owner = await server.human('olivia', { role: 'owner' });
    });
    after(() => server.stop());

    it('proposes, approves and lists a Space with its events', async () => {
      const created = await server.request('POST', '/v0/spaces', {
        token: alice.session,
        body: { slug: 'garden', name: 'Garden', purpose: 'Grow things' },
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.status, 'proposed');
      assert.equal(created.body.created_by, 'alice');
      assert.deepEqual(created.body.pinned_resources, []);

      const approved = await server.request('POST', '/v0/spaces/garden/approve', { token: owner.session });
      assert.equal(approved.status, 200);
      assert.equal(approved.body.status, 'active');

      const again = await server.request('POST', '/v0/spaces/garden/approve', { token: STEWARD_KEY });
      assert.equal(again.status, 409);

      const feed = await server.request('GET', '/v0/spaces/garden/events');
      assert.equal(feed.status, 200);
      assert.deepEqual(
        feed.body.events.map((e: { type: string }) => e.type),
        ['space_proposed', 'space_approved'],
      );
      assert.equal(feed.body.cursor, feed.body.events[1].cursor);
    });
  });
}
