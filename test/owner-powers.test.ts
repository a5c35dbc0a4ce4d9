import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents, lastCursor } from './support/events.js';
import { seedAgent, seedMemberKey } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer, type Person } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertError } from './support/errors.js';

for (const backend of backends()) {
  describe(`Suspending an Owner (${backend})`, () => {
    let server: TestServer;
    let olivia: Person; // host-wide Owner
    let otto: Person; // another host-wide Owner
    let hana: Person; // host-wide Host
    before(async () => {
      server = await startServer(backend);
      olivia = await server.human('olivia', { role: 'owner' });
      otto = await server.human('otto', { role: 'owner' });
      hana = await server.human('hana', { role: 'host' });
      const proposer = await server.human('pia');
      await activeSpace(server, proposer.session, 'studio');
      // sofia: Owner of one Space only.
      await server.human('sofia', { role: 'owner', space: 'studio' });
    });
    after(() => server.stop());

    const move = (handle: string, verb: 'suspend' | 'reinstate', token: string) =>
      server.request('POST', `/v0/members/${handle}/${verb}`, { token });
    const status = async (handle: string) => (await server.request('GET', `/v0/members/${handle}`)).body.status;

    it('refuses a Host, by session or member key, to suspend or reinstate an Owner (403, nothing written)', async () => {
      const hanaKey = await seedMemberKey(server, 'hana');
      const since = await lastCursor(server);
      for (const token of [hana.session, hanaKey]) {
        for (const target of ['olivia', 'sofia']) {
          const res = await move(target, 'suspend', token);
          assertError(res, 'owner_protected', target);
          assert.deepEqual(Object.keys(res.body), ['detail']);
        }
      }
      assert.equal(await status('olivia'), 'active');
      assert.equal(await status('sofia'), 'active');

      // Suspended by someone who may: a Host cannot let them back in either.
      assert.equal((await move('olivia', 'suspend', STEWARD_KEY)).status, 200);
      const since2 = await lastCursor(server);
      const reinstate = await move('olivia', 'reinstate', hana.session);
      assertError(reinstate, 'owner_protected');
      assert.equal(await status('olivia'), 'suspended');
      assert.deepEqual(await hostEvents(server, since2), []);
      assert.equal((await move('olivia', 'reinstate', STEWARD_KEY)).status, 200);
      assert.deepEqual(
        (await hostEvents(server, since)).map((e) => [e.type, e.payload.handle]),
        [
          ['member_suspended', 'olivia'],
          ['member_reinstated', 'olivia'],
        ],
      );
    });

    it('lets a host-wide Owner (session or member key) suspend and reinstate another Owner', async () => {
      const ottoKey = await seedMemberKey(server, 'otto');
      const suspended = await move('olivia', 'suspend', otto.session);
      assert.equal(suspended.status, 200);
      assert.equal(suspended.body.status, 'suspended');
      assert.equal((await server.request('GET', '/v0/me', { token: olivia.session })).status, 403);
      assert.equal((await move('olivia', 'reinstate', ottoKey)).status, 200);
      assert.equal((await move('sofia', 'suspend', ottoKey)).status, 200);
      assert.equal((await move('sofia', 'reinstate', otto.session)).status, 200);
      assert.equal((await server.request('GET', '/v0/me', { token: olivia.session })).status, 200);
    });

    it('still lets a Host suspend and reinstate members who are not Owners', async () => {
      const plain = await server.human('plain');
      assert.equal((await move('plain', 'suspend', hana.session)).status, 200);
      assert.equal((await server.request('GET', '/v0/me', { token: plain.session })).status, 403);
      assert.equal((await move('plain', 'reinstate', hana.session)).status, 200);
      // A revoked Owner assignment no longer protects.
      const assignments = await server.request('GET', '/v0/role-assignments?member=sofia', { token: STEWARD_KEY });
      for (const a of assignments.body.role_assignments) {
        assert.equal((await server.request('POST', `/v0/role-assignments/${a.id}/revoke`, { token: STEWARD_KEY })).status, 200);
      }
      assert.equal((await move('sofia', 'suspend', hana.session)).status, 200);
      assert.equal((await move('sofia', 'reinstate', hana.session)).status, 200);
    });
  });

  describe(`Owner/Host powers with a member key (${backend})`, () => {
    let server: TestServer;
    let ownerKey: string; // a host-wide Owner's own member key
    let hostKey: string; // a Space-scoped Host's own member key
    let agentKey: string; // an active agent operated by the Owner
    let alice: Person;
    let bob: Person;
    before(async () => {
      server = await startServer(backend);
      const owner = await server.human('olivia', { role: 'owner' });
      alice = await server.human('alice');
      bob = await server.human('bob');
      await activeSpace(server, alice.session, 'vault', 'invite');
      await activeSpace(server, alice.session, 'club', 'request');
      await server.human('hugo', { role: 'host', space: 'club' });
      ownerKey = await seedMemberKey(server, owner.handle);
      hostKey = await seedMemberKey(server, 'hugo');
      agentKey = (await seedAgent(server, 'olivia-bot', owner.handle, 'active')).key;
    });
    after(() => server.stop());

    const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
      server.request(method, path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });

    it('approves, archives and restores Spaces and lists archived ones', async () => {
      for (const slug of ['draft', 'shelved']) {
        assert.equal((await call('POST', '/v0/spaces', alice.session, { slug, name: slug })).status, 201);
      }
      const approved = await call('POST', '/v0/spaces/draft/approve', ownerKey);
      assert.equal(approved.status, 200, approved.body?.detail);
      assert.equal(approved.body.status, 'active');
      assert.equal((await call('POST', '/v0/spaces/shelved/archive', ownerKey, { reason: 'later' })).status, 200);
      const archived = await call('GET', '/v0/spaces?status=archived', ownerKey);
      assert.equal(archived.status, 200);
      assert.deepEqual(archived.body.spaces.map((s: { slug: string }) => s.slug), ['shelved']);
      assert.equal((await call('POST', '/v0/spaces/shelved/restore', ownerKey)).body.status, 'proposed');
      // A Space-scoped Host's key is not host-wide.
      assert.equal((await call('POST', '/v0/spaces/shelved/approve', hostKey)).status, 403);
    });

    it('handles admissions: invitations, join requests and removal', async () => {
      const invited = await call('POST', '/v0/spaces/vault/invitations', ownerKey, { member: 'bob' });
      assert.equal(invited.status, 201, invited.body?.detail);
      assert.equal((await call('POST', '/v0/spaces/vault/join', bob.session)).status, 200);
      assert.equal((await call('POST', '/v0/spaces/vault/members/bob/remove', ownerKey)).body.state, 'removed');

      assert.equal((await call('POST', '/v0/spaces/club/join', bob.session)).status, 202);
      const admitted = await call('POST', '/v0/spaces/club/join-requests/bob/admit', hostKey);
      assert.equal(admitted.status, 200, admitted.body?.detail);
      assert.equal(admitted.body.state, 'admitted');
      const members = await call('GET', '/v0/spaces/club/members', hostKey);
      assert.equal(members.status, 200);
    });

    it('sets pins, approves agents and reads the host-wide feed', async () => {
      const pins = await call('POST', '/v0/spaces/club/pins', hostKey, { resource_ids: [] });
      assert.equal(pins.status, 200, pins.body?.detail);
      assert.equal((await call('POST', '/v0/agents', undefined, { handle: 'alice-bot', operator: 'alice' })).status, 201);
      assert.equal((await call('POST', '/v0/agents/alice-bot/confirm', alice.session)).status, 200);
      assert.equal((await call('POST', '/v0/agents/alice-bot/approve', ownerKey)).body.status, 'active');
      assert.equal((await call('GET', '/v0/events?limit=5', ownerKey)).status, 200);
    });

    it('keeps review policy, role administration, adding humans and credentials session-only (403 for keys)', async () => {
      const refusals: Array<[string, string, unknown]> = [
        ['POST', '/v0/spaces/club/review-policy', { review_policy: 'distinct_member', reason: 'keys may not' }],
        ['POST', '/v0/role-assignments', { member: 'bob', role: 'host', space: 'club' }],
        ['GET', '/v0/role-assignments', undefined],
        ['GET', '/v0/role-assignments?space=club', undefined],
        ['POST', '/v0/humans', { handle: 'carl', email: 'carl@example.test' }],
        ['GET', '/v0/credentials', undefined],
      ];
      for (const [method, path, body] of refusals) {
        for (const token of [ownerKey, hostKey]) {
          const res = await call(method, path, token, body);
          assertError(res, 'session_required', `${method} ${path}`);
        }
      }
      assert.equal((await server.request('GET', '/v0/spaces/club')).body.review_policy, 'independent_principal');
      assert.equal((await server.request('GET', '/v0/members/carl')).status, 404);
    });

    it("answers an agent's key with 403, never 401, where an Owner/Host role is required", async () => {
      assert.equal((await call('POST', '/v0/spaces', alice.session, { slug: 'agent-try', name: 'Agent try' })).status, 201);
      const requests: Array<[string, string, unknown]> = [
        ['GET', '/v0/spaces?status=archived', undefined],
        ['POST', '/v0/spaces/agent-try/approve', undefined],
        ['POST', '/v0/spaces/vault/invitations', { member: 'alice' }],
        ['POST', '/v0/spaces/club/pins', { resource_ids: [] }],
        ['GET', '/v0/events', undefined],
        ['POST', '/v0/members/bob/suspend', undefined],
        ['POST', '/v0/spaces/club/review-policy', { review_policy: 'distinct_member', reason: 'agents may not' }],
        ['GET', '/v0/role-assignments', undefined],
      ];
      for (const [method, path, body] of requests) {
        const res = await call(method, path, agentKey, body);
        assert.equal(res.status, 403, `${method} ${path}: ${JSON.stringify(res.body)}`);
      }
      assert.equal((await server.request('GET', '/v0/spaces/agent-try')).body.status, 'proposed');
    });
  });
}
