import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { hostEvents, lastCursor } from './support/events.js';
import { seedAgent, seedMemberKey } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer, type Person } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertError } from './support/errors.js';

for (const backend of backends()) {
  describe(`Operator confirmation (${backend})`, () => {
    let server: TestServer;
    let opal: Person; // an operator without roles
    let olivia: Person; // a host-wide Owner who also operates agents
    let hana: Person; // a host-wide Host
    let mallory: Person;
    before(async () => {
      server = await startServer(backend);
      opal = await server.human('opal');
      olivia = await server.human('olivia', { role: 'owner' });
      hana = await server.human('hana', { role: 'host' });
      mallory = await server.human('mallory');
    });
    after(() => server.stop());

    const post = (path: string, token?: string) => server.request('POST', path, token ? { token } : {});
    const register = async (handle: string, operator: string) => {
      const res = await server.request('POST', '/v0/agents', { body: { handle, operator } });
      assert.equal(res.status, 201, res.body?.detail);
      return res.body.key as string;
    };
    const member = async (handle: string) => (await server.request('GET', `/v0/members/${handle}`)).body;

    it('keeps a registered agent unconfirmed, and approval refused with 409, until its operator confirms', async () => {
      const key = await register('opal-bot', 'opal');
      assert.equal((await member('opal-bot')).operator_confirmed, false);
      assert.equal((await member('opal')).operator_confirmed, undefined, 'humans have no operator to confirm');

      const since = await lastCursor(server);
      for (const token of [STEWARD_KEY, olivia.session, hana.session]) {
        const early = await post('/v0/agents/opal-bot/approve', token);
        assertError(early, 'operator_not_confirmed');
        assert.deepEqual(Object.keys(early.body), ['detail']);
      }
      assert.equal((await member('opal-bot')).status, 'pending');
      assert.equal((await server.request('GET', '/v0/me', { token: key })).status, 403, 'the key still may not act');
      assert.deepEqual(await hostEvents(server, since), []);
    });

    it('lets only the named operator (session or member key) or the steward key confirm', async () => {
      await register('opal-helper', 'opal');
      const malloryBot = await seedAgent(server, 'mallory-bot', 'mallory', 'active');
      const since = await lastCursor(server);
      const refusals: Array<[string, string | undefined, number]> = [
        ['anonymous', undefined, 401],
        ['another human', mallory.session, 403],
        ['a host-wide Owner who is not the operator', olivia.session, 403],
        ['a host-wide Host', hana.session, 403],
        ["another human's agent", malloryBot.key, 403],
        ['a wrong steward key', 'not-the-steward-key', 403],
      ];
      for (const [label, token, status] of refusals) {
        const res = await post('/v0/agents/opal-helper/confirm', token);
        assert.equal(res.status, status, `${label}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(Object.keys(res.body), ['detail']);
      }
      assert.equal((await post('/v0/agents/nobody-here/confirm', opal.session)).status, 404);
      assertError(await post('/v0/agents/mallory/confirm', STEWARD_KEY), 'agent_not_found');
      assert.equal((await member('opal-helper')).operator_confirmed, false);
      assert.deepEqual(await hostEvents(server, since), []);

      const opalKey = await seedMemberKey(server, 'opal');
      const confirmed = await post('/v0/agents/opal-helper/confirm', opalKey);
      assert.equal(confirmed.status, 200);
      assert.equal(confirmed.body.handle, 'opal-helper');
      assert.equal(confirmed.body.operator_confirmed, true);
      assert.equal(confirmed.body.status, 'pending');
      const again = await post('/v0/agents/opal-helper/confirm', opal.session);
      assert.equal(again.status, 200);
      assert.equal(again.body.operator_confirmed, true);

      await register('opal-scout', 'opal');
      assert.equal((await post('/v0/agents/opal-scout/confirm', STEWARD_KEY)).status, 200);

      const events = await hostEvents(server, since);
      assert.deepEqual(
        events.map((e) => [e.type, e.actor, e.subjects, e.payload]),
        [
          ['agent_operator_confirmed', 'opal', ['member:opal-helper', 'member:opal'], { handle: 'opal-helper', operator: 'opal' }],
          ['member_registered', null, ['member:opal-scout', 'member:opal'], { handle: 'opal-scout', type: 'agent', operator: 'opal', status: 'pending', via: 'registration' }],
          ['agent_operator_confirmed', null, ['member:opal-scout', 'member:opal'], { handle: 'opal-scout', operator: 'opal', via: 'steward_key' }],
        ],
        'one event per confirmation, none for confirming again',
      );

      const approved = await post('/v0/agents/opal-helper/approve', hana.session);
      assert.equal(approved.status, 200);
      assert.equal(approved.body.status, 'active');
    });

    it('lets an operator who may approve confirm and approve their own agent in one step', async () => {
      const key = await register('olivia-bot', 'olivia');
      const since = await lastCursor(server);
      const approved = await post('/v0/agents/olivia-bot/approve', olivia.session);
      assert.equal(approved.status, 200);
      assert.equal(approved.body.status, 'active');
      assert.equal(approved.body.operator_confirmed, true);
      assert.deepEqual(
        (await hostEvents(server, since)).map((e) => [e.type, e.actor, e.payload]),
        [
          ['agent_operator_confirmed', 'olivia', { handle: 'olivia-bot', operator: 'olivia' }],
          ['member_approved', 'olivia', { handle: 'olivia-bot' }],
        ],
      );
      assert.equal((await server.request('GET', '/v0/me', { token: key })).status, 200);
    });

    it('rolls the confirmation back when the approval itself is refused', async () => {
      await register('olivia-spare', 'olivia');
      assert.equal((await post('/v0/members/olivia-spare/suspend', STEWARD_KEY)).status, 200);
      const since = await lastCursor(server);
      const refused = await post('/v0/agents/olivia-spare/approve', olivia.session);
      assertError(refused, 'member_transition_invalid');
      assert.equal((await member('olivia-spare')).operator_confirmed, false);
      assert.deepEqual(await hostEvents(server, since), []);
    });

    it('refuses to reinstate an unconfirmed agent: suspension is no way around confirmation', async () => {
      await register('opal-sneak', 'opal');
      assert.equal((await post('/v0/members/opal-sneak/suspend', STEWARD_KEY)).status, 200);
      const since = await lastCursor(server);
      const refused = await post('/v0/members/opal-sneak/reinstate', olivia.session);
      assertError(refused, 'operator_not_confirmed');
      assert.equal((await member('opal-sneak')).status, 'suspended');
      assert.deepEqual(await hostEvents(server, since), []);
      assert.equal((await post('/v0/agents/opal-sneak/confirm', opal.session)).status, 200);
      const reinstated = await post('/v0/members/opal-sneak/reinstate', olivia.session);
      assert.equal(reinstated.status, 200);
      assert.equal(reinstated.body.status, 'active');
    });

    it('starts agents stored before confirmation existed unconfirmed (the column default)', async () => {
      const ts = new Date().toISOString();
      await sql`insert into members (handle, type, display_name, operator, capabilities, status, email, email_verified, created_ts, updated_ts)
        values ('older-bot', 'agent', 'Older bot', 'opal', '[]', 'active', null, 0, ${ts}, ${ts})`.execute(server.app.ctx.db.kysely);
      const older = await member('older-bot');
      assert.equal(older.status, 'active');
      assert.equal(older.operator_confirmed, false);
    });
  });

  describe(`Accountable principals need a confirmed operator (${backend})`, () => {
    let server: TestServer;
    let owner: Person;
    let victor: Person;
    let mallory: Person;
    const tokens: Record<string, string> = {};
    before(async () => {
      server = await startServer(backend);
      owner = await server.human('olga', { role: 'owner' });
      victor = await server.human('victor');
      mallory = await server.human('mallory');
      tokens.mallory = mallory.session;
      tokens.victor = victor.session;
      // An agent already active that names victor without victor ever vouching for it:
      // what every agent registered before confirmation existed looks like.
      tokens['forged-reviewer'] = (await seedAgent(server, 'forged-reviewer', 'victor', 'active', { confirmed: false })).key;
      await activeSpace(server, owner.session, 'repo');
    });
    after(() => server.stop());

    const post = (path: string, token: string, body?: unknown) => server.request('POST', path, { token, ...(body !== undefined ? { body } : {}) });
    const submitted = async (kind: string, worker: string): Promise<number> => {
      const created = await post('/v0/spaces/repo/tasks', owner.session, { kind, title: `${kind} by ${worker}` });
      assert.equal(created.status, 201, created.body?.detail);
      for (const verb of ['claim', 'submit']) {
        const res = await post(`/v0/spaces/repo/tasks/${created.body.id}/${verb}`, tokens[worker]!);
        assert.equal(res.status, 200, res.body?.detail);
      }
      return created.body.id as number;
    };

    it("never records an unconfirmed agent as its named operator's independent sign-off", async () => {
      const merge = await submitted('merge', 'mallory');
      const forged = await post(`/v0/spaces/repo/tasks/${merge}/complete`, tokens['forged-reviewer']!);
      assertError(forged, 'provenance_insufficient');
      assert.match(forged.body.detail, /forged-reviewer \(accountable principal unknown\) cannot complete work by mallory/);
      assert.match(forged.body.detail, /has not confirmed it/);
      assert.equal((await server.request('GET', `/v0/spaces/repo/tasks/${merge}`)).body.status, 'submitted');

      // Where distinct members suffice, the completion stands but names no principal for the agent.
      const general = await submitted('general', 'mallory');
      const policy = await post('/v0/spaces/repo/review-policy', owner.session, { review_policy: 'distinct_member', reason: 'lenient' });
      assert.equal(policy.status, 200);
      const done = await post(`/v0/spaces/repo/tasks/${general}/complete`, tokens['forged-reviewer']!);
      assert.equal(done.status, 200);
      assert.equal(done.body.completion.completer_principal, null);
      assert.equal(done.body.completion.assurance, 'distinct_member');

      // Once victor vouches for the agent, it answers to victor.
      assert.equal((await post('/v0/agents/forged-reviewer/confirm', victor.session)).status, 200);
      const signed = await post(`/v0/spaces/repo/tasks/${merge}/complete`, tokens['forged-reviewer']!);
      assert.equal(signed.status, 200, signed.body?.detail);
      assert.equal(signed.body.completion.completer_principal, 'victor');
      assert.equal(signed.body.completion.assurance, 'independent_principal');
    });
  });

  describe(`Agents of a suspended operator (${backend})`, () => {
    let server: TestServer;
    let sue: Person;
    before(async () => {
      server = await startServer(backend);
      sue = await server.human('sue');
      await activeSpace(server, sue.session, 'garden');
    });
    after(() => server.stop());

    it("refuses the agent's key with 403 while its operator is suspended, and restores it on reinstatement", async () => {
      const agent = await seedAgent(server, 'sue-bot', 'sue', 'active');
      const legacy = await seedAgent(server, 'legacy-bot', 'Sue <sue@legacy.example>', 'active');
      const me = () => server.request('GET', '/v0/me', { token: agent.key });
      assert.equal((await me()).status, 200);

      assert.equal((await server.request('POST', '/v0/members/sue/suspend', { token: STEWARD_KEY })).status, 200);
      const refused = await me();
      assertError(refused, 'member_suspended');
      const join = await server.request('POST', '/v0/spaces/garden/join', { token: agent.key });
      assert.equal(join.status, 403);
      // Refused even where anonymous callers are welcome: the credential itself is refused.
      assert.equal((await server.request('GET', '/v0/members/sue', { token: agent.key })).status, 403);
      // A legacy free-text operator is no member, so nothing about sue touches that agent.
      assert.equal((await server.request('GET', '/v0/me', { token: legacy.key })).status, 200);
      assert.equal((await server.request('GET', '/v0/members/sue-bot')).body.status, 'active', "the agent's own status is untouched");

      assert.equal((await server.request('POST', '/v0/members/sue/reinstate', { token: STEWARD_KEY })).status, 200);
      assert.equal((await me()).status, 200);
      assert.equal((await server.request('POST', '/v0/spaces/garden/join', { token: agent.key })).status, 200);
    });
  });
}
