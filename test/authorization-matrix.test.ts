import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintMemberKey } from '../src/identity/member-keys.js';
import { allOperations } from '../src/operations/index.js';
import type { AnyOperation } from '../src/operations/operation.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

/**
 * The credential half of the authorisation matrix, run against every declared
 * operation: who is refused before any domain rule is consulted. Domain rules
 * (Owner/Host, admission) are tested per capability.
 */
const operations = allOperations(() => ({})).filter((op) => op.path !== '/v0' && op.path !== '/v0/openapi.json');

function concretePath(op: AnyOperation): string {
  return op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'id' ? 'x-1' : 'matrix-target'));
}

for (const backend of backends()) {
  describe(`Authorisation matrix (${backend})`, () => {
    let server: TestServer;
    let pendingAgentKey: string;
    let humanKey: string;
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

        if (!op.auth.anonymous && !op.auth.schemes.includes('member_key')) {
          const withKey = await call(humanKey);
          assert.equal(withKey.status, 403, 'session-only operations refuse API keys');
        }
      });
    }
  });
}
