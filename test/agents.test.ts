import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSession } from '../src/identity/sessions.js';
import { hashSecret } from '../src/shared/secrets.js';
import { hostEvents, lastCursor } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';




for (const backend of backends()) {
  describe(`Agent registration (${backend})`, () => {
    let server: TestServer;
    let olivia: { handle: string; session: string };
    let hana: { handle: string; session: string };
    before(async () => {
      server = await startServer(backend);
      olivia = await server.human('olivia', { role: 'owner' });
      hana = await server.human('hana', { role: 'host' });
    });
    after(() => server.stop());

    it('registers a pending agent anonymously, shows the key once and stores only its digest', async () => {
      const since = await lastCursor(server);
      const res = await server.request('POST', '/v0/agents', {
        body: { handle: 'scout', operator: 'olivia', display_name: 'Scout', capabilities: ['search', 'summarise'] },
      });
      assert.equal(res.status, 201);
      assert.deepEqual(res.body.member, {
        id: `${server.url}/v0/members/scout`,
        handle: 'scout',
        type: 'agent',
        display_name: 'Scout',
        operator: 'olivia',
        operator_confirmed: false,
        capabilities: ['search', 'summarise'],
        status: 'pending',
        created_ts: res.body.member.created_ts,
      });
      assert.match(res.body.key, /^sk_atrium_[A-Za-z0-9_-]{43}$/);
      assert.match(res.body.note, /shown only once/);
      assert.match(res.body.note, /approves/);

      const stored = await server.app.ctx.db.kysely.selectFrom('member_keys').selectAll().where('member_handle', '=', 'scout').execute();
      assert.equal(stored.length, 1);
      assert.equal(stored[0]!.key_hash, hashSecret(res.body.key));
      assert.equal(stored[0]!.origin, 'agent_registration');
      assert.ok(!JSON.stringify(stored).includes(res.body.key), 'the key itself is never stored');

      const events = await hostEvents(server, since);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.type, 'member_registered');
      assert.equal(events[0]!.space, null);
      assert.equal(events[0]!.actor, null);
      assert.deepEqual(events[0]!.subjects, ['member:scout', 'member:olivia']);
      assert.deepEqual(events[0]!.payload, { handle: 'scout', type: 'agent', operator: 'olivia', status: 'pending', via: 'registration' });
      assert.ok(!JSON.stringify(events).includes(res.body.key), 'events never carry the key');
    });

    it('defaults display_name to the handle and capabilities to []', async () => {
      const res = await server.request('POST', '/v0/agents', { body: { handle: 'plain-agent', operator: 'hana' } });
      assert.equal(res.status, 201);
      assert.equal(res.body.member.display_name, 'plain-agent');
      assert.deepEqual(res.body.member.capabilities, []);
    });

    it('attributes a registration made with a session to that member', async () => {
      const since = await lastCursor(server);
      const res = await server.request('POST', '/v0/agents', { token: hana.session, body: { handle: 'helper', operator: 'hana' } });
      assert.equal(res.status, 201);
      const [event] = await hostEvents(server, since);
      assert.equal(event!.actor, 'hana');
      assert.equal(event!.payload.via, undefined);
    });

    it('refuses a taken handle with 409, across humans and agents, and writes nothing', async () => {
      const since = await lastCursor(server);
      const human = await server.request('POST', '/v0/agents', { body: { handle: 'olivia', operator: 'hana' } });
      assertError(human, 'handle_taken');
      const agent = await server.request('POST', '/v0/agents', { body: { handle: 'scout', operator: 'hana' } });
      assertError(agent, 'handle_taken');
      assert.deepEqual(await hostEvents(server, since), []);
      const keys = await server.app.ctx.db.kysely.selectFrom('member_keys').select('id').where('member_handle', '=', 'scout').execute();
      assert.equal(keys.length, 1);
    });

    it('refuses an operator that is not a registered active human with 422', async () => {
      await server.human('sam');
      await server.human('pia');
      await server.app.ctx.db.kysely.updateTable('members').set({ status: 'suspended' }).where('handle', '=', 'sam').execute();
      await server.app.ctx.db.kysely.updateTable('members').set({ status: 'pending' }).where('handle', '=', 'pia').execute();
      const since = await lastCursor(server);
      for (const operator of ['nobody', 'scout']) {
        const res = await server.request('POST', '/v0/agents', { body: { handle: 'orphan', operator } });
        assertError(res, 'unknown_reference', operator);
      }
      for (const operator of ['sam', 'pia']) {
        const res = await server.request('POST', '/v0/agents', { body: { handle: 'orphan', operator } });
        assertError(res, 'operator_not_active', operator);
      }
      assert.equal((await server.request('GET', '/v0/members/orphan')).status, 404);
      assert.deepEqual(await hostEvents(server, since), []);
    });

    it('rejects bad input with 422 and leaves nothing written', async () => {
      const since = await lastCursor(server);
      const cases: Array<[string, unknown]> = [
        ['handle too long', { handle: 'a'.repeat(33), operator: 'olivia' }],
        ['handle too short', { handle: 'ab', operator: 'olivia' }],
        ['handle pattern', { handle: 'Bad_Handle', operator: 'olivia' }],
        ['handle type', { handle: 42, operator: 'olivia' }],
        ['missing operator', { handle: 'bad-one' }],
        ['operator type', { handle: 'bad-one', operator: ['olivia'] }],
        ['display name too long', { handle: 'bad-one', operator: 'olivia', display_name: 'x'.repeat(129) }],
        ['empty display name', { handle: 'bad-one', operator: 'olivia', display_name: '' }],
        ['17 capabilities', { handle: 'bad-one', operator: 'olivia', capabilities: Array.from({ length: 17 }, (_, i) => `c${i}`) }],
        ['65-char capability', { handle: 'bad-one', operator: 'olivia', capabilities: ['c'.repeat(65)] }],
        ['empty capability', { handle: 'bad-one', operator: 'olivia', capabilities: [''] }],
        ['duplicate capability', { handle: 'bad-one', operator: 'olivia', capabilities: ['a', 'a'] }],
        ['capabilities type', { handle: 'bad-one', operator: 'olivia', capabilities: 'search' }],
        ['unknown field', { handle: 'bad-one', operator: 'olivia', status: 'active' }],
        ['not an object', ['bad-one']],
      ];
      for (const [label, body] of cases) {
        const res = await server.request('POST', '/v0/agents', { body });
        assert.equal(res.status, 422, label);
        assert.equal(typeof res.body.detail, 'string', label);
      }
      const malformed = await server.request('POST', '/v0/agents', { rawBody: '{"handle": "bad-one",' });
      assert.equal(malformed.status, 422);
      const empty = await server.request('POST', '/v0/agents', {});
      assert.equal(empty.status, 422);

      // Nothing was registered; a handle no registration could have made is refused as such.
      assert.equal((await server.request('GET', '/v0/members/bad-one')).status, 404);
      for (const handle of ['a'.repeat(33), 'ab']) {
        assert.equal((await server.request('GET', `/v0/members/${handle}`)).status, 422, handle);
      }
      assert.deepEqual(await hostEvents(server, since), []);
    });

    it('lets a pending key authenticate but refuses every action with 403', async () => {
      const reg = await server.request('POST', '/v0/agents', { body: { handle: 'waiting', operator: 'olivia' } });
      assert.equal(reg.status, 201);
      const key = reg.body.key as string;
      const space = await server.request('POST', '/v0/spaces', { token: olivia.session, body: { slug: 'lobby', name: 'Lobby' } });
      assert.equal(space.status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/lobby/approve', { token: STEWARD_KEY })).status, 200);

      const join = await server.request('POST', '/v0/spaces/lobby/join', { token: key });
      assertError(join, 'member_pending');
      const me = await server.request('GET', '/v0/me', { token: key });
      assertError(me, 'member_pending');
      const register = await server.request('POST', '/v0/agents', { token: key, body: { handle: 'spawned', operator: 'olivia' } });
      assert.equal(register.status, 403);
      assert.equal((await server.request('GET', '/v0/members/spawned')).status, 404);

      // A made-up key of the same shape is 401: the pending key really did authenticate.
      const unknown = await server.request('POST', '/v0/spaces/lobby/join', { token: `sk_atrium_${'x'.repeat(43)}` });
      assert.equal(unknown.status, 401);

      const approved = await server.request('POST', '/v0/agents/waiting/approve', { token: olivia.session });
      assert.equal(approved.status, 200);
      assert.equal(approved.body.status, 'active');
      const joined = await server.request('POST', '/v0/spaces/lobby/join', { token: key });
      assert.equal(joined.status, 200);
      assert.equal(joined.body.state, 'admitted');
      const meNow = await server.request('GET', '/v0/me', { token: key });
      assert.equal(meNow.status, 200);
      assert.equal(meNow.body.handle, 'waiting');
    });

    it('approves a pending agent (Owner/Host or steward) with a member_approved event', async () => {
      await server.request('POST', '/v0/agents', { body: { handle: 'by-host', operator: 'olivia' } });
      await server.request('POST', '/v0/agents', { body: { handle: 'by-steward', operator: 'olivia' } });
      for (const handle of ['by-host', 'by-steward']) {
        assert.equal((await server.request('POST', `/v0/agents/${handle}/confirm`, { token: olivia.session })).status, 200);
      }
      const since = await lastCursor(server);

      const byHost = await server.request('POST', '/v0/agents/by-host/approve', { token: hana.session });
      assert.equal(byHost.status, 200);
      assert.equal(byHost.body.status, 'active');
      assert.equal(byHost.body.email, undefined);
      const bySteward = await server.request('POST', '/v0/agents/by-steward/approve', { token: STEWARD_KEY });
      assert.equal(bySteward.status, 200);
      assert.equal(bySteward.body.status, 'active');

      const events = await hostEvents(server, since);
      assert.deepEqual(
        events.map((e) => [e.type, e.actor, e.subjects, e.payload]),
        [
          ['member_approved', 'hana', ['member:by-host', 'member:olivia'], { handle: 'by-host' }],
          ['member_approved', null, ['member:by-steward', 'member:olivia'], { handle: 'by-steward', via: 'steward_key' }],
        ],
      );
      assert.equal((await server.request('GET', '/v0/members/by-host')).body.status, 'active');
    });

    it('answers approve errors: 409 not pending, 404 unknown or human, 401/403 without authority', async () => {
      await server.request('POST', '/v0/agents', { body: { handle: 'unapproved', operator: 'olivia' } });
      const since = await lastCursor(server);

      const again = await server.request('POST', '/v0/agents/by-host/approve', { token: olivia.session });
      assertError(again, 'member_transition_invalid');
      assert.equal((await server.request('POST', '/v0/agents/ghost/approve', { token: olivia.session })).status, 404);
      const human = await server.request('POST', '/v0/agents/hana/approve', { token: olivia.session });
      assertError(human, 'agent_not_found');

      assert.equal((await server.request('POST', '/v0/agents/unapproved/approve')).status, 401);
      const plain = await server.human('plain');
      assert.equal((await server.request('POST', '/v0/agents/unapproved/approve', { token: plain.session })).status, 403);
      const scoped = await server.human('scoped-host');
      await server.request('POST', '/v0/spaces', { token: plain.session, body: { slug: 'corner', name: 'Corner' } });
      const grant = await server.request('POST', '/v0/role-assignments', {
        token: STEWARD_KEY,
        body: { member: 'scoped-host', role: 'host', space: 'corner' },
      });
      assert.equal(grant.status, 201);
      const bySpaceHost = await server.request('POST', '/v0/agents/unapproved/approve', { token: scoped.session });
      assert.equal(bySpaceHost.status, 403, 'a Space-scoped Host cannot approve host-wide members');
      assert.equal((await server.request('POST', '/v0/agents/unapproved/approve', { token: 'not-the-steward-key' })).status, 403);

      assert.equal((await server.request('GET', '/v0/members/unapproved')).body.status, 'pending');
      const events = await hostEvents(server, since);
      assert.ok(!events.some((e) => e.type === 'member_approved'));
    });

    it("never lets an agent inherit its operator's Owner powers", async () => {
      const reg = await server.request('POST', '/v0/agents', { body: { handle: 'deputy', operator: 'olivia' } });
      assert.equal((await server.request('POST', '/v0/agents/deputy/confirm', { token: olivia.session })).status, 200);
      assert.equal((await server.request('POST', '/v0/agents/deputy/approve', { token: STEWARD_KEY })).status, 200);
      const key = reg.body.key as string;
      await server.request('POST', '/v0/agents', { body: { handle: 'deputy-target', operator: 'olivia' } });
      const proposed = await server.request('POST', '/v0/spaces', { token: olivia.session, body: { slug: 'annex', name: 'Annex' } });
      assert.equal(proposed.status, 201);

      assert.equal((await server.request('POST', '/v0/spaces/annex/approve', { token: key })).status, 403);
      assert.equal((await server.request('POST', '/v0/agents/deputy-target/approve', { token: key })).status, 403);
      assert.equal((await server.request('POST', '/v0/members/plain/suspend', { token: key })).status, 403);
      const grant = await server.request('POST', '/v0/role-assignments', { token: key, body: { member: 'deputy', role: 'owner' } });
      assert.equal(grant.status, 403);

      // Even a session for the agent (agents never sign in) carries no power: authority checks the member, not its operator.
      const session = await server.app.ctx.db.transaction((tx) => startSession(tx, 'deputy'));
      assert.equal((await server.request('POST', '/v0/spaces/annex/approve', { token: session.token })).status, 403);
      assert.equal((await server.request('POST', '/v0/agents/deputy-target/approve', { token: session.token })).status, 403);

      assert.equal((await server.request('GET', '/v0/spaces/annex')).body.status, 'proposed');
      assert.equal((await server.request('GET', '/v0/members/deputy-target')).body.status, 'pending');
    });
  });
}

for (const backend of backends()) {
  describe(`Anonymous agent registration limit (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_AGENT_REGISTRATION_RATE_LIMIT: '2' } });
      await server.human('limit-operator');
    });
    after(() => server.stop());

    it('limits anonymous registrations per address, not signed-in ones', async () => {
      const register = (handle: string, token?: string) =>
        server.request('POST', '/v0/agents', { body: { handle, operator: 'limit-operator' }, ...(token ? { token } : {}) });
      assert.equal((await register('limit-bot-a')).status, 201);
      assert.equal((await register('limit-bot-a')).status, 409, 'a refused registration is not counted');
      assert.equal((await register('limit-bot-b')).status, 201);
      const limited = await register('limit-bot-c');
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal((await server.request('GET', '/v0/members/limit-bot-c')).status, 404, 'nothing was written');
      assert.equal((await register('limit-bot-d', STEWARD_KEY)).status, 201, 'an accountable registrar is not limited');
    });
  });
}
