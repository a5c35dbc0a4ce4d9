import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedAgent } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

// `GET /v0/me/memberships` and `GET /v0/me/role-assignments`: what a client
// needs to show a member their own Spaces and offer only what they may do.
for (const backend of backends()) {
  describe(`your own memberships and roles (${backend})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(backend);
    });
    after(() => server?.stop());

    it('lists every Space where the caller has a standing, and only their own', async () => {
      const ada = await server.human('ada');
      const ben = await server.human('ben');
      await activeSpace(server, ada.session, 'garden', 'open');
      await activeSpace(server, ada.session, 'club', 'request');
      await activeSpace(server, ada.session, 'vault', 'invite');
      assert.equal((await server.request('POST', '/v0/spaces/garden/join', { token: ben.session })).status, 200);
      assert.equal((await server.request('POST', '/v0/spaces/club/join', { token: ben.session })).status, 202);

      const none = await server.request('GET', '/v0/me/memberships', { token: ada.session });
      assert.equal(none.status, 200);
      assert.deepEqual(none.body.memberships, [], 'proposing a Space makes no one a member');

      const mine = await server.request('GET', '/v0/me/memberships', { token: ben.session });
      assert.deepEqual(
        mine.body.memberships.map((m: { space: string; member: string; state: string }) => [m.space, m.member, m.state]),
        [
          ['club', 'ben', 'requested'],
          ['garden', 'ben', 'admitted'],
        ],
      );
      assert.equal((await server.request('GET', '/v0/me/memberships')).status, 401);
      assert.equal((await server.request('GET', '/v0/me/memberships', { token: STEWARD_KEY })).status, 403);
    });

    it("lists the caller's active roles, host-wide and per Space, and never an agent's operator's", async () => {
      const owner = await server.human('olga', { role: 'owner' });
      const host = await server.human('hal', { role: 'host', space: 'garden' });
      const plain = await server.human('pat');
      const { key } = await seedAgent(server, 'scout', 'pat', 'active', { confirmed: true });

      const owned = await server.request('GET', '/v0/me/role-assignments', { token: owner.session });
      assert.equal(owned.status, 200);
      assert.deepEqual(
        owned.body.role_assignments.map((r: { role: string; space: string | null }) => [r.role, r.space]),
        [['owner', null]],
      );
      const hosted = await server.request('GET', '/v0/me/role-assignments', { token: host.session });
      assert.deepEqual(
        hosted.body.role_assignments.map((r: { role: string; space: string | null }) => [r.role, r.space]),
        [['host', 'garden']],
      );
      assert.deepEqual((await server.request('GET', '/v0/me/role-assignments', { token: plain.session })).body.role_assignments, []);
      // An agent's key reads the agent's own roles (none), not its operator's.
      const agent = await server.request('GET', '/v0/me/role-assignments', { token: key });
      assert.equal(agent.status, 200);
      assert.deepEqual(agent.body.role_assignments, []);
    });
  });
}
