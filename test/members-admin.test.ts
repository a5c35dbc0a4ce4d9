import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOwner, ensureOwner } from '../src/cli/admin.js';
import { startSession } from '../src/identity/sessions.js';
import type { ErrorCode } from '../src/shared/error-catalogue.js';
import { AtriumError } from '../src/shared/errors.js';
import { hostEvents, lastCursor } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';




async function assignmentsOf(server: TestServer, handle: string): Promise<Array<{ role: string; space: string | null; created_by: string | null }>> {
  const res = await server.request('GET', `/v0/role-assignments?member=${handle}`, { token: STEWARD_KEY });
  assert.equal(res.status, 200);
  return res.body.role_assignments;
}

function rejectsWith(code: ErrorCode) {
  return (err: unknown) => err instanceof AtriumError && err.code === code;
}

for (const backend of backends()) {
  describe(`Admin CLI: create-owner (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend);
    });
    after(() => server.stop());

    it('creates a human with a host-wide owner assignment whose session can approve a Space', async () => {
      const since = await lastCursor(server);
      const member = await createOwner(server.app.ctx, { handle: 'root-owner', email: 'Root@Example.test', displayName: 'Root' });
      assert.equal(member.handle, 'root-owner');
      assert.equal(member.type, 'human');
      assert.equal(member.status, 'active');

      const read = await server.request('GET', '/v0/members/root-owner', { token: STEWARD_KEY });
      assert.equal(read.status, 200);
      assert.equal(read.body.display_name, 'Root');
      assert.equal(read.body.email, 'root@example.test');
      assert.equal(read.body.email_verified, false);
      assert.deepEqual(
        (await assignmentsOf(server, 'root-owner')).map((a) => [a.role, a.space, a.created_by]),
        [['owner', null, null]],
      );

      const events = await hostEvents(server, since);
      assert.deepEqual(
        events.map((e) => [e.type, e.actor, e.payload.via]),
        [
          ['member_registered', null, 'admin_cli'],
          ['role_assigned', null, 'admin_cli'],
        ],
      );

      const session = await server.app.ctx.db.transaction((tx) => startSession(tx, 'root-owner'));
      const proposer = await server.human('pat');
      assert.equal((await server.request('POST', '/v0/spaces', { token: proposer.session, body: { slug: 'hall', name: 'Hall' } })).status, 201);
      const approved = await server.request('POST', '/v0/spaces/hall/approve', { token: session.token });
      assert.equal(approved.status, 200);
      assert.equal(approved.body.status, 'active');
      const grant = await server.request('POST', '/v0/role-assignments', { token: session.token, body: { member: 'pat', role: 'host' } });
      assert.equal(grant.status, 201);
      assert.equal(grant.body.created_by, 'root-owner');
    });

    it('is idempotent: a second run changes nothing', async () => {
      const since = await lastCursor(server);
      const outcome = await ensureOwner(server.app.ctx, { handle: 'root-owner', email: 'root@example.test' });
      assert.equal(outcome.createdMember, false);
      assert.equal(outcome.assignedOwner, false);
      assert.equal(outcome.member.handle, 'root-owner');
      assert.equal((await assignmentsOf(server, 'root-owner')).length, 1);
      assert.deepEqual(await hostEvents(server, since), []);
    });

    it('adds the owner role to an existing human that lacks it', async () => {
      await server.human('existing');
      const since = await lastCursor(server);
      const outcome = await ensureOwner(server.app.ctx, { handle: 'existing', email: 'existing@example.test' });
      assert.equal(outcome.createdMember, false);
      assert.equal(outcome.assignedOwner, true);
      assert.deepEqual((await assignmentsOf(server, 'existing')).map((a) => [a.role, a.space]), [['owner', null]]);
      assert.deepEqual((await hostEvents(server, since)).map((e) => e.type), ['role_assigned']);
    });

    it('refuses a handle held by an agent, a human with another address, a taken address or a bad handle, writing nothing', async () => {
      const reg = await server.request('POST', '/v0/agents', { body: { handle: 'bot', operator: 'pat' } });
      assert.equal(reg.status, 201);
      const since = await lastCursor(server);

      await assert.rejects(createOwner(server.app.ctx, { handle: 'bot', email: 'bot@example.test' }), rejectsWith('handle_taken'));
      await assert.rejects(
        createOwner(server.app.ctx, { handle: 'pat', email: 'someone-else@example.test' }),
        rejectsWith('handle_taken'),
      );
      await assert.rejects(
        createOwner(server.app.ctx, { handle: 'newcomer', email: 'pat@example.test' }),
        rejectsWith('email_taken'),
      );
      await assert.rejects(createOwner(server.app.ctx, { handle: 'Bad Handle', email: 'x@example.test' }), rejectsWith('validation_failed'));
      await assert.rejects(createOwner(server.app.ctx, { handle: 'fine', email: 'not-an-address' }), rejectsWith('validation_failed'));

      assert.equal((await server.request('GET', '/v0/members/newcomer')).status, 404);
      assert.equal((await server.request('GET', '/v0/members/fine')).status, 404);
      assert.deepEqual((await assignmentsOf(server, 'pat')).map((a) => a.role), ['host'], 'pat did not become an owner');
      assert.deepEqual(await hostEvents(server, since), []);
    });
  });
}
