import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintMemberKey } from '../src/identity/member-keys.js';
import { startSession } from '../src/identity/sessions.js';
import { hostEvents, lastCursor } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';
import type { ErrorCode } from '../src/shared/error-catalogue.js';




async function assignmentCount(server: TestServer): Promise<number> {
  const rows = await server.app.ctx.db.kysely.selectFrom('role_assignments').select('id').execute();
  return rows.length;
}

for (const backend of backends()) {
  describe(`Role assignments (${backend})`, () => {
    let server: TestServer;
    let olivia: { handle: string; session: string };
    let hana: { handle: string; session: string };
    let carol: { handle: string; session: string };
    before(async () => {
      server = await startServer(backend);
      olivia = await server.human('olivia', { role: 'owner' });
      hana = await server.human('hana', { role: 'host' });
      carol = await server.human('carol');
      await server.human('dave');
      assert.equal((await server.request('POST', '/v0/spaces', { token: carol.session, body: { slug: 'den', name: 'Den' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces', { token: carol.session, body: { slug: 'loft', name: 'Loft' } })).status, 201);
      const reg = await server.request('POST', '/v0/agents', { body: { handle: 'tidy', operator: 'olivia' } });
      assert.equal(reg.status, 201);
    });
    after(() => server.stop());

    it('assigns a role with the steward key (created_by null) and as a host-wide owner (created_by handle)', async () => {
      const since = await lastCursor(server);
      const bySteward = await server.request('POST', '/v0/role-assignments', {
        token: STEWARD_KEY,
        body: { member: 'carol', role: 'host', space: 'den' },
      });
      assert.equal(bySteward.status, 201);
      assert.match(bySteward.body.id, /^role_/);
      assert.deepEqual(bySteward.body, {
        id: bySteward.body.id,
        member: 'carol',
        role: 'host',
        space: 'den',
        status: 'active',
        created_by: null,
        created_ts: bySteward.body.created_ts,
      });

      const byOwner = await server.request('POST', '/v0/role-assignments', { token: olivia.session, body: { member: 'dave', role: 'owner' } });
      assert.equal(byOwner.status, 201);
      assert.equal(byOwner.body.space, null);
      assert.equal(byOwner.body.created_by, 'olivia');

      const maintainer = await server.request('POST', '/v0/role-assignments', {
        token: olivia.session,
        body: { member: 'tidy', role: 'maintainer', space: 'den' },
      });
      assert.equal(maintainer.status, 201, 'agents may be designated maintainers');

      const events = await hostEvents(server, since);
      assert.deepEqual(
        events.map((e) => [e.type, e.space, e.actor, e.subjects, e.payload]),
        [
          ['role_assigned', null, null, ['member:carol', 'space:den'], { id: bySteward.body.id, member: 'carol', role: 'host', space: 'den', via: 'steward_key' }],
          ['role_assigned', null, 'olivia', ['member:dave'], { id: byOwner.body.id, member: 'dave', role: 'owner', space: null }],
          ['role_assigned', null, 'olivia', ['member:tidy', 'space:den'], { id: maintainer.body.id, member: 'tidy', role: 'maintainer', space: 'den' }],
        ],
      );
    });

    it('gives a Space-scoped Host power on that Space only', async () => {
      const policy = { review_policy: 'distinct_member', reason: 'two pairs of eyes' };
      assert.equal((await server.request('POST', '/v0/spaces/den/review-policy', { token: carol.session, body: policy })).status, 200);
      assert.equal((await server.request('POST', '/v0/spaces/loft/review-policy', { token: carol.session, body: policy })).status, 403);
    });

    it('refuses invalid assignments with 422 and writes nothing', async () => {
      const since = await lastCursor(server);
      const before = await assignmentCount(server);
      const cases: Array<[string, unknown, ErrorCode, RegExp]> = [
        ['agent as owner', { member: 'tidy', role: 'owner' }, 'validation_failed', /agents never hold/],
        ['agent as host of a Space', { member: 'tidy', role: 'host', space: 'den' }, 'validation_failed', /agents never hold/],
        ['maintainer without Space', { member: 'carol', role: 'maintainer' }, 'validation_failed', /scoped to one Space/],
        ['unknown Space', { member: 'carol', role: 'host', space: 'nowhere' }, 'unknown_reference', /no such Space/],
        ['unknown member', { member: 'ghost', role: 'host' }, 'unknown_reference', /no such member/],
        ['unknown role', { member: 'carol', role: 'admin' }, 'validation_failed', /role/],
        ['wrong type', { member: 'carol', role: 'host', space: 7 }, 'validation_failed', /space/],
        ['unknown field', { member: 'carol', role: 'host', reason: 'x' }, 'validation_failed', /unknown field "reason"/],
        ['missing member', { role: 'host' }, 'validation_failed', /member/],
        ['bad handle', { member: 'A'.repeat(33), role: 'host' }, 'validation_failed', /member/],
      ];
      for (const [label, body, code, detail] of cases) {
        const res = await server.request('POST', '/v0/role-assignments', { token: STEWARD_KEY, body });
        // The detail names the field at fault, and the rule it breaks.
        assert.match(assertError(res, code, label), detail, label);
      }
      assert.equal(await assignmentCount(server), before);
      assert.deepEqual(await hostEvents(server, since), []);
    });

    it('refuses a duplicate active assignment with 409', async () => {
      const before = await assignmentCount(server);
      const dup = await server.request('POST', '/v0/role-assignments', { token: STEWARD_KEY, body: { member: 'carol', role: 'host', space: 'den' } });
      assertError(dup, 'role_already_held');
      const hostWide = await server.request('POST', '/v0/role-assignments', { token: STEWARD_KEY, body: { member: 'olivia', role: 'owner', space: null } });
      assertError(hostWide, 'role_already_held');
      assert.equal(await assignmentCount(server), before);
    });

    it('lets only the steward key or a host-wide owner session assign', async () => {
      const before = await assignmentCount(server);
      const body = { member: 'carol', role: 'host', space: 'loft' };
      assert.equal((await server.request('POST', '/v0/role-assignments', { body })).status, 401);
      const byHost = await server.request('POST', '/v0/role-assignments', { token: hana.session, body });
      assertError(byHost, 'role_required');
      assert.equal((await server.request('POST', '/v0/role-assignments', { token: carol.session, body })).status, 403);
      const key = await server.app.ctx.db.transaction((tx) => mintMemberKey(tx, 'olivia', 'client_activation', 'test client'));
      assert.equal((await server.request('POST', '/v0/role-assignments', { token: key.key, body })).status, 403, 'owner API keys are refused');
      assert.equal((await server.request('POST', '/v0/role-assignments', { token: 'wrong-steward', body })).status, 403);
      assert.equal(await assignmentCount(server), before);
    });

    it('lists active assignments by default, filtered by member and Space', async () => {
      const all = await server.request('GET', '/v0/role-assignments', { token: STEWARD_KEY });
      assert.equal(all.status, 200);
      assert.deepEqual(
        all.body.role_assignments.map((a: { member: string; role: string; space: string | null }) => `${a.member}:${a.role}:${a.space}`).sort(),
        ['carol:host:den', 'dave:owner:null', 'hana:host:null', 'olivia:owner:null', 'tidy:maintainer:den'],
      );
      const byMember = await server.request('GET', '/v0/role-assignments?member=carol', { token: hana.session });
      assert.equal(byMember.status, 200);
      assert.deepEqual(byMember.body.role_assignments.map((a: { role: string }) => a.role), ['host']);
      const bySpace = await server.request('GET', '/v0/role-assignments?space=den', { token: olivia.session });
      assert.deepEqual(bySpace.body.role_assignments.map((a: { member: string }) => a.member), ['carol', 'tidy']);
      const both = await server.request('GET', '/v0/role-assignments?member=tidy&space=loft', { token: STEWARD_KEY });
      assert.deepEqual(both.body.role_assignments, []);
    });

    it('lets a Space-scoped Host list that Space only, and refuses others', async () => {
      const own = await server.request('GET', '/v0/role-assignments?space=den', { token: carol.session });
      assert.equal(own.status, 200);
      assert.equal(own.body.role_assignments.length, 2);
      assert.equal((await server.request('GET', '/v0/role-assignments', { token: carol.session })).status, 403);
      assert.equal((await server.request('GET', '/v0/role-assignments?space=loft', { token: carol.session })).status, 403);
      const dave = await server.app.ctx.db.transaction((tx) => startSession(tx, 'dave'));
      assert.equal((await server.request('GET', '/v0/role-assignments', { token: dave.token })).status, 200);
      assert.equal((await server.request('GET', '/v0/role-assignments')).status, 401);
      const bad = await server.request('GET', '/v0/role-assignments?status=expired', { token: STEWARD_KEY });
      // The detail names the parameter at fault.
      assert.match(assertError(bad, 'validation_failed'), /status/);
    });

    it('revokes an assignment: it stops granting power and stays listed as revoked', async () => {
      const grant = await server.request('POST', '/v0/role-assignments', { token: STEWARD_KEY, body: { member: 'carol', role: 'host', space: 'loft' } });
      assert.equal(grant.status, 201);
      const since = await lastCursor(server);
      const revoked = await server.request('POST', `/v0/role-assignments/${grant.body.id}/revoke`, { token: olivia.session });
      assert.equal(revoked.status, 200);
      assert.deepEqual(revoked.body, { ...grant.body, status: 'revoked' });

      const policy = { review_policy: 'self_attested', reason: 'solo work' };
      assert.equal((await server.request('POST', '/v0/spaces/loft/review-policy', { token: carol.session, body: policy })).status, 403);

      const [event] = await hostEvents(server, since);
      assert.equal(event!.type, 'role_revoked');
      assert.equal(event!.space, null);
      assert.equal(event!.actor, 'olivia');
      assert.deepEqual(event!.subjects, ['member:carol', 'space:loft']);
      assert.deepEqual(event!.payload, { id: grant.body.id, member: 'carol', role: 'host', space: 'loft' });

      const active = await server.request('GET', '/v0/role-assignments?space=loft', { token: STEWARD_KEY });
      assert.deepEqual(active.body.role_assignments, []);
      const history = await server.request('GET', '/v0/role-assignments?space=loft&status=revoked', { token: STEWARD_KEY });
      assert.deepEqual(history.body.role_assignments, [revoked.body]);
      const everything = await server.request('GET', '/v0/role-assignments?member=carol&status=all', { token: STEWARD_KEY });
      assert.deepEqual(everything.body.role_assignments.map((a: { status: string }) => a.status).sort(), ['active', 'revoked']);

      const again = await server.request('POST', `/v0/role-assignments/${grant.body.id}/revoke`, { token: STEWARD_KEY });
      assertError(again, 'role_already_revoked');
    });

    it('revokes a host-wide role with the steward key and removes that power', async () => {
      const list = await server.request('GET', '/v0/role-assignments?member=hana', { token: STEWARD_KEY });
      const id = list.body.role_assignments[0].id as string;
      const since = await lastCursor(server);
      const res = await server.request('POST', `/v0/role-assignments/${id}/revoke`, { token: STEWARD_KEY });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'revoked');
      const [event] = await hostEvents(server, since);
      assert.equal(event!.actor, null);
      assert.equal(event!.payload.via, 'steward_key');
      assert.equal((await server.request('POST', '/v0/spaces/den/approve', { token: hana.session })).status, 403);
    });

    it('answers revoke errors: 404 unknown, 403 for non-owners, 409 for your own owner role', async () => {
      const since = await lastCursor(server);
      assert.equal((await server.request('POST', `/v0/role-assignments/role_${'a'.repeat(26)}/revoke`, { token: STEWARD_KEY })).status, 404);
      const own = await server.request('GET', '/v0/role-assignments?member=olivia', { token: STEWARD_KEY });
      const ownId = own.body.role_assignments[0].id as string;
      assert.equal((await server.request('POST', `/v0/role-assignments/${ownId}/revoke`)).status, 401);
      assert.equal((await server.request('POST', `/v0/role-assignments/${ownId}/revoke`, { token: carol.session })).status, 403);
      const self = await server.request('POST', `/v0/role-assignments/${ownId}/revoke`, { token: olivia.session });
      assertError(self, 'self_action_refused');
      const still = await server.request('GET', '/v0/role-assignments?member=olivia', { token: STEWARD_KEY });
      assert.equal(still.body.role_assignments[0].status, 'active');
      assert.deepEqual(await hostEvents(server, since), []);
    });
  });
}
