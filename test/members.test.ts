import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents, lastCursor } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';




for (const backend of backends()) {
  describe(`Members (${backend})`, () => {
    let server: TestServer;
    let olivia: { handle: string; session: string };
    let hana: { handle: string; session: string };
    let bob: { handle: string; session: string };
    let agentKey: string;
    before(async () => {
      server = await startServer(backend);
      olivia = await server.human('olivia', { role: 'owner' });
      hana = await server.human('hana', { role: 'host' });
      bob = await server.human('bob');
      const reg = await server.request('POST', '/v0/agents', { body: { handle: 'runner', operator: 'bob', capabilities: ['run'] } });
      assert.equal(reg.status, 201);
      agentKey = reg.body.key;
      assert.equal((await server.request('POST', '/v0/agents/runner/confirm', { token: bob.session })).status, 200);
      assert.equal((await server.request('POST', '/v0/agents/runner/approve', { token: STEWARD_KEY })).status, 200);
      assert.equal((await server.request('POST', '/v0/spaces', { token: olivia.session, body: { slug: 'yard', name: 'Yard' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/yard/approve', { token: STEWARD_KEY })).status, 200);
    });
    after(() => server.stop());

    describe('reading a member', () => {
      it('shows the public projection anonymously and to other members', async () => {
        for (const token of [undefined, hana.session, agentKey]) {
          const res = await server.request('GET', '/v0/members/bob', token ? { token } : {});
          assert.equal(res.status, 200);
          assert.deepEqual(res.body, {
            id: `${server.url}/v0/members/bob`,
            handle: 'bob',
            type: 'human',
            display_name: 'bob',
            capabilities: [],
            status: 'active',
            created_ts: res.body.created_ts,
          });
        }
      });

      it('adds email and email_verified for the steward key and for the member itself', async () => {
        for (const token of [STEWARD_KEY, bob.session]) {
          const res = await server.request('GET', '/v0/members/bob', { token });
          assert.equal(res.status, 200);
          assert.equal(res.body.email, 'bob@example.test');
          assert.equal(res.body.email_verified, true);
        }
      });

      it('shows an agent with its operator and no e-mail fields', async () => {
        const res = await server.request('GET', '/v0/members/runner', { token: agentKey });
        assert.equal(res.status, 200);
        assert.equal(res.body.type, 'agent');
        assert.equal(res.body.operator, 'bob');
        assert.deepEqual(res.body.capabilities, ['run']);
        assert.equal('email' in res.body, false);
      });

      it('redacts a legacy e-mail-like operator except for the steward key', async () => {
        const ts = '2024-05-01T10:00:00.000Z';
        await server.app.ctx.db.kysely
          .insertInto('members')
          .values({
            handle: 'old-bot',
            type: 'agent',
            display_name: 'Old bot',
            operator: 'Pat <pat@legacy.example>',
            operator_confirmed: 0,
            capabilities: '[]',
            status: 'active',
            email: null,
            email_verified: 0,
            access_version: 0,
            created_ts: ts,
            updated_ts: ts,
          })
          .execute();
        for (const token of [undefined, olivia.session]) {
          const res = await server.request('GET', '/v0/members/old-bot', token ? { token } : {});
          assert.equal(res.status, 200);
          assert.equal(res.body.operator, '[redacted]');
          assert.ok(!JSON.stringify(res.body).includes('legacy.example'));
        }
        const steward = await server.request('GET', '/v0/members/old-bot', { token: STEWARD_KEY });
        assert.equal(steward.body.operator, 'Pat <pat@legacy.example>');
      });

      it('answers 404 for an unknown handle', async () => {
        const res = await server.request('GET', '/v0/members/nobody');
        assertError(res, 'member_not_found');
      });
    });

    describe('suspend and reinstate', () => {
      it('suspends a member: its keys and sessions are refused with 403 until reinstated', async () => {
        const since = await lastCursor(server);
        const suspended = await server.request('POST', '/v0/members/runner/suspend', { token: olivia.session });
        assert.equal(suspended.status, 200);
        assert.equal(suspended.body.status, 'suspended');

        const join = await server.request('POST', '/v0/spaces/yard/join', { token: agentKey });
        assertError(join, 'member_suspended');
        // Refused even where anonymous callers are welcome: the credential itself is suspended.
        assert.equal((await server.request('GET', '/v0/members/runner', { token: agentKey })).status, 403);

        const bobSuspended = await server.request('POST', '/v0/members/bob/suspend', { token: STEWARD_KEY });
        assert.equal(bobSuspended.status, 200);
        assert.equal(bobSuspended.body.email, 'bob@example.test', 'the steward sees the private projection');
        assert.equal((await server.request('GET', '/v0/me', { token: bob.session })).status, 403);
        const propose = await server.request('POST', '/v0/spaces', { token: bob.session, body: { slug: 'nope', name: 'Nope' } });
        assert.equal(propose.status, 403);
        assert.equal((await server.request('GET', '/v0/spaces/nope')).status, 404);

        const reinstated = await server.request('POST', '/v0/members/runner/reinstate', { token: hana.session });
        assert.equal(reinstated.status, 200);
        assert.equal(reinstated.body.status, 'active');
        assert.equal((await server.request('POST', '/v0/members/bob/reinstate', { token: STEWARD_KEY })).status, 200);

        const joined = await server.request('POST', '/v0/spaces/yard/join', { token: agentKey });
        assert.equal(joined.status, 200);
        assert.equal((await server.request('POST', '/v0/spaces', { token: bob.session, body: { slug: 'back', name: 'Back' } })).status, 201);

        const events = (await hostEvents(server, since)).filter((e) => e.type.startsWith('member_'));
        assert.deepEqual(
          events.map((e) => [e.type, e.actor, e.subjects, e.payload]),
          [
            ['member_suspended', 'olivia', ['member:runner', 'member:bob'], { handle: 'runner' }],
            ['member_suspended', null, ['member:bob'], { handle: 'bob', via: 'steward_key' }],
            ['member_reinstated', 'hana', ['member:runner', 'member:bob'], { handle: 'runner' }],
            ['member_reinstated', null, ['member:bob'], { handle: 'bob', via: 'steward_key' }],
          ],
        );
      });

      it('suspends a pending agent', async () => {
        await server.request('POST', '/v0/agents', { body: { handle: 'dubious', operator: 'bob' } });
        const res = await server.request('POST', '/v0/members/dubious/suspend', { token: STEWARD_KEY });
        assert.equal(res.status, 200);
        assert.equal(res.body.status, 'suspended');
        const approve = await server.request('POST', '/v0/agents/dubious/approve', { token: STEWARD_KEY });
        assert.equal(approve.status, 409);
      });

      it('answers 409 on the wrong status and for suspending yourself, writing nothing', async () => {
        const since = await lastCursor(server);
        const twice = await server.request('POST', '/v0/members/dubious/suspend', { token: STEWARD_KEY });
        assertError(twice, 'member_transition_invalid');
        const notSuspended = await server.request('POST', '/v0/members/bob/reinstate', { token: STEWARD_KEY });
        assertError(notSuspended, 'member_transition_invalid');
        const self = await server.request('POST', '/v0/members/olivia/suspend', { token: olivia.session });
        assertError(self, 'self_action_refused');
        assert.equal((await server.request('GET', '/v0/members/olivia')).body.status, 'active');
        assert.deepEqual(await hostEvents(server, since), []);
      });

      it('answers 404, 401 and 403 for unknown members and callers without authority', async () => {
        const since = await lastCursor(server);
        assert.equal((await server.request('POST', '/v0/members/ghost/suspend', { token: STEWARD_KEY })).status, 404);
        assert.equal((await server.request('POST', '/v0/members/ghost/reinstate', { token: STEWARD_KEY })).status, 404);
        assert.equal((await server.request('POST', '/v0/members/bob/suspend')).status, 401);
        assert.equal((await server.request('POST', '/v0/members/hana/suspend', { token: bob.session })).status, 403);
        assert.equal((await server.request('POST', '/v0/members/dubious/reinstate', { token: bob.session })).status, 403);
        // An agent's key is authenticated but never carries Owner/Host powers: 403, not 401.
        assert.equal((await server.request('POST', '/v0/members/bob/suspend', { token: agentKey })).status, 403);
        assert.equal((await server.request('GET', '/v0/members/bob')).body.status, 'active');
        assert.deepEqual(await hostEvents(server, since), []);
      });
    });
  });
}
