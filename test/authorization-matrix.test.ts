import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintMemberKey } from '../src/identity/member-keys.js';
import { allOperations } from '../src/operations/index.js';
import type { AnyOperation } from '../src/operations/operation.js';
import { seedAgent, seedMemberKey } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

/**
 * The credential half of the authorisation matrix, run against every declared
 * operation: who is refused before any domain rule is consulted. Domain rules
 * (Owner/Host, admission) are tested per capability.
 */
const operations = allOperations(() => ({})).filter((op) => op.path !== '/v0' && op.path !== '/v0/openapi.json');

/**
 * The operations that refuse every API key, an Owner's own included: account
 * operations, review policy, and administering who holds power. Every other
 * Owner/Host power takes the human's member key like their session.
 */
const SESSION_ONLY = [
  'assign_role',
  'change_review_policy',
  'create_human',
  'list_credentials',
  'list_role_assignments',
  'revoke_credential',
  'revoke_role_assignment',
  'sign_out',
];

function concretePath(op: AnyOperation): string {
  return op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'id' ? 'x-1' : 'matrix-target'));
}

for (const backend of backends()) {
  describe(`Authorisation matrix (${backend})`, () => {
    let server: TestServer;
    let pendingAgentKey: string;
    let humanKey: string;
    let ownerKey: string;
    let activeAgentKey: string;
    let suspendedSession: string;
    before(async () => {
      server = await startServer(backend);
      const operator = await server.human('matrix-operator');
      const suspended = await server.human('matrix-suspended');
      suspendedSession = suspended.session;
      const registered = await server.request('POST', '/v0/agents', {
        body: { handle: 'matrix-agent', operator: operator.handle },
      });
      assert.equal(registered.status, 201);
      pendingAgentKey = registered.body.key;
      humanKey = await server.app.ctx.db.transaction(async (tx) => (await mintMemberKey(tx, operator.handle, 'client_activation')).key);
      ownerKey = await seedMemberKey(server, (await server.human('matrix-owner', { role: 'owner' })).handle);
      activeAgentKey = (await seedAgent(server, 'matrix-active-agent', operator.handle, 'active')).key;
      const suspension = await server.request('POST', '/v0/members/matrix-suspended/suspend', { token: STEWARD_KEY });
      assert.equal(suspension.status, 200);
    });
    after(() => server.stop());

    for (const op of operations) {
      const path = concretePath(op);
      const call = (token?: string) =>
        server.request(op.method, path, { ...(token ? { token } : {}), ...(op.body ? { body: {} } : {}) });

      it(`${op.method} ${op.path}: credential rules`, async () => {
        const anonymous = await call();
        if (!op.auth.anonymous) assert.equal(anonymous.status, 401, 'anonymous callers need a credential');

        if (op.auth.schemes.length === 0) {
          // A public operation reads no credential: whatever comes along is answered as if absent, never 401/403.
          for (const token of ['sk_atrium_unknownunknownunknownunknownunknown00', suspendedSession, pendingAgentKey, 'not-the-steward-key', activeAgentKey]) {
            assert.equal((await call(token)).status, anonymous.status, 'a public operation ignores credentials');
          }
          return;
        }

        const unknownKey = await call('sk_atrium_unknownunknownunknownunknownunknown00');
        assert.equal(unknownKey.status, 401, 'an unknown member key is always 401');

        const suspendedCaller = await call(suspendedSession);
        assert.equal(suspendedCaller.status, 403, 'a suspended member is refused everywhere');

        if (!op.auth.anonymous) {
          const pending = await call(pendingAgentKey);
          assert.equal(pending.status, 403, 'a pending agent authenticates but may not act');
        }

        const wrongSteward = await call('not-the-steward-key');
        if (op.auth.schemes.includes('steward_key')) assert.equal(wrongSteward.status, 403, 'a wrong steward key is 403');
        else assert.equal(wrongSteward.status, 401, 'a key that is no credential here is 401');

        // An agent's key is authenticated: where it lacks the power, no other credential would help it.
        assert.notEqual((await call(activeAgentKey)).status, 401, "an active agent's key is never 401");

        if (!op.auth.anonymous && !op.auth.schemes.includes('member_key')) {
          for (const key of [humanKey, ownerKey]) {
            const withKey = await call(key);
            assert.equal(withKey.status, 403, 'session-only operations refuse API keys, an Owner\'s included');
          }
        }
      });
    }

    it('refuses API keys on exactly the session-only operations', () => {
      const sessionOnly = operations.filter((op) => !op.auth.anonymous && !op.auth.schemes.includes('member_key')).map((op) => op.name);
      assert.deepEqual(sessionOnly.sort(), SESSION_ONLY);
    });

    it("answers an agent's key with 403 where a role is required, also on operations open to anonymous callers", async () => {
      const archived = await server.request('GET', '/v0/spaces?status=archived', { token: activeAgentKey });
      assert.equal(archived.status, 403);
      assert.equal((await server.request('GET', '/v0/spaces?status=archived')).status, 401);
    });
  });
}
