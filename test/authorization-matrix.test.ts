import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintMemberKey } from '../src/identity/member-keys.js';
import { allOperations } from '../src/operations/index.js';
import type { AnyOperation } from '../src/operations/operation.js';
import { onlyReads } from '../src/oauth/narrowing.js';
import { TestClock } from './support/clock.js';
import { grantTokens, postForm } from './support/oauth.js';
import { seedAgent, seedMemberKey } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
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
  'approve_oauth_authorization_request',
  'assign_role',
  'change_review_policy',
  'create_human',
  'deny_oauth_authorization_request',
  'get_oauth_authorization_request',
  'list_credentials',
  'list_oauth_grants',
  'list_role_assignments',
  'revoke_credential',
  'revoke_oauth_grant',
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
    /** OAuth access tokens for the REST API (docs/oauth.md): each narrowed or spoilt one way. */
    const grants = { read: '', spaceNarrowed: '', agent: '', revoked: '', expired: '' };
    const clock = new TestClock(Date.now());
    before(async () => {
      server = await startServer(backend, { clock });
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

      // The expired token is issued first; the clock then moves past its hour, and every other token is fresh.
      grants.expired = (await grantTokens(server, operator.session, { acting_member: operator.handle, resource: 'rest' })).access_token;
      clock.advance(60 * 60 * 1000 + 1000);
      await activeSpace(server, operator.session, 'matrix-granted');
      grants.read = (await grantTokens(server, operator.session, { acting_member: operator.handle, scope: 'read', resource: 'rest' })).access_token;
      grants.spaceNarrowed = (await grantTokens(server, operator.session, { acting_member: operator.handle, spaces: ['matrix-granted'], resource: 'rest' })).access_token;
      grants.agent = (await grantTokens(server, operator.session, { acting_member: 'matrix-active-agent', resource: 'rest' })).access_token;
      const revoked = await grantTokens(server, operator.session, { acting_member: operator.handle, resource: 'rest' });
      assert.equal((await postForm(server, '/oauth/revoke', { token: revoked.refresh_token })).status, 200);
      grants.revoked = revoked.access_token;
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
          for (const key of [humanKey, ownerKey, grants.read, grants.agent]) {
            const withKey = await call(key);
            assert.equal(withKey.status, 403, 'session-only operations refuse API keys and OAuth tokens, an Owner\'s included');
          }
        }
      });

      it(`${op.method} ${op.path}: OAuth grants`, async () => {
        if (op.auth.schemes.length === 0) {
          const anonymous = await call();
          for (const token of Object.values(grants)) assert.equal((await call(token)).status, anonymous.status, 'a public operation ignores credentials');
          return;
        }
        assert.equal((await call(grants.revoked)).status, 401, "a revoked grant's token is 401");
        assert.equal((await call(grants.expired)).status, 401, 'an expired token is 401');
        assert.notEqual((await call(grants.agent)).status, 401, "an agent grant's token is the agent's credential");

        const read = await call(grants.read);
        const narrowed = await call(grants.spaceNarrowed);
        if (op.createsCredential) {
          // No OAuth token creates or approves a credential, whatever its scope: revoking a grant leaves nothing behind.
          for (const answer of [read, narrowed, await call(grants.agent)]) {
            assert.equal(answer.status, 403);
            assert.equal(answer.headers.get('atrium-error'), 'session_required');
          }
          return;
        }
        if (!op.auth.schemes.includes('member_key')) {
          assert.equal(read.status, 403);
          assert.equal(narrowed.status, 403);
          return;
        }
        if (onlyReads(op)) {
          assert.notEqual(read.status, 401);
          assert.equal(read.headers.get('www-authenticate'), null, 'a read grant reads');
        } else {
          assert.equal(read.status, 403, 'a read grant writes nothing');
          assert.match(read.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="write"/);
        }
        // The matrix's Space (matrix-target) is outside the narrowed grant: it reads only what is public there, and writes nothing.
        const namesSpace = op.path.includes('{slug}') || op.path.includes('{space}');
        if (!onlyReads(op)) assert.equal(narrowed.status, 403, 'a Space-narrowed grant writes only inside its Spaces');
        else if (namesSpace) assert.equal(narrowed.status, op.auth.anonymous ? (await call()).status : 403, 'outside its Spaces: only what is public');
        else if (op.beyondSpaces === undefined) {
          assert.equal(narrowed.status, 403, 'a read across Spaces is closed to a narrowed grant unless its declaration keeps it inside');
          assert.equal(narrowed.headers.get('atrium-error'), 'grant_space_excluded');
        } else if (op.beyondSpaces === 'public') assert.equal(narrowed.status, (await call()).status, 'answered as the public is');
        else assert.notEqual(narrowed.status, 401);
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
