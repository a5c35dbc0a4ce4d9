import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedAgent, setMemberStatus } from './support/seed.js';
import { TestClock } from './support/clock.js';
import { approve, grantTokens, postForm, REDIRECT_URI, registerClient, startAuthorization } from './support/oauth.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, type TestServer } from './support/server.js';

// What a client holding tokens could do beyond what it was given: widen a
// scope it narrowed, refresh without naming itself, or keep refreshing while
// the people it acts for are suspended (docs/oauth.md, "Tokens").

for (const backend of backends()) {
  describe(`OAuth tokens stay within what was given (${backend})`, () => {
    let server: TestServer;
    const clock = new TestClock(Date.now());
    let alice: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend, { clock, env: { ATRIUM_OAUTH_REGISTRATION_RATE_LIMIT: '100000', ATRIUM_OAUTH_AUTHORIZATION_RATE_LIMIT: '100000' } });
      alice = await server.human('escape-alice');
      const owner = await server.human('escape-owner', { role: 'owner' });
      await activeSpace(server, owner.session, 'escape-room', 'open');
      assert.equal((await server.request('POST', '/v0/spaces/escape-room/join', { token: alice.session })).status, 200);
    });
    after(() => server.stop());

    const post = (token: string) => server.request('POST', '/v0/spaces/escape-room/channels/general/messages', { token, body: { body: 'hello' } });

    it('answers a scope-down refresh with tokens of that scope, which a later refresh cannot widen', async () => {
      const tokens = await grantTokens(server, alice.session, { acting_member: alice.handle, resource: 'rest' });
      assert.equal((await post(tokens.access_token)).status, 201);
      const narrowed = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.clientId, scope: 'read' });
      assert.equal(narrowed.status, 200);
      assert.equal(narrowed.body.scope, 'read');
      const readOnly = narrowed.body.access_token as string;
      assert.equal((await server.request('GET', '/v0/spaces/escape-room', { token: readOnly })).status, 200);
      const write = await post(readOnly);
      assert.equal(write.status, 403);
      assert.equal(write.headers.get('atrium-error'), 'grant_read_only');
      assert.match(write.headers.get('www-authenticate')!, /error="insufficient_scope", scope="write"/);

      const widened = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: narrowed.body.refresh_token as string, client_id: tokens.clientId, scope: 'read write' });
      assert.equal(widened.status, 400);
      assert.equal(widened.body.error, 'invalid_scope');
      // A refusal spends nothing: the narrowed refresh token still refreshes, and without a scope it keeps its own.
      const again = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: narrowed.body.refresh_token as string, client_id: tokens.clientId });
      assert.equal(again.status, 200);
      assert.equal(again.body.scope, 'read');
      assert.equal((await post(again.body.access_token as string)).status, 403);
    });

    it('requires client_id for every grant type', async () => {
      const clientId = await registerClient(server);
      const start = await startAuthorization(server, clientId);
      const code = await approve(server, alice.session, start, { acting_member: alice.handle });
      const withoutClient = await postForm(server, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: start.verifier, redirect_uri: REDIRECT_URI });
      assert.equal(withoutClient.status, 400);
      assert.equal(withoutClient.body.error, 'invalid_request');
      assert.match(withoutClient.body.error_description as string, /client_id/);
      const exchanged = await postForm(server, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: start.verifier, redirect_uri: REDIRECT_URI, client_id: clientId });
      assert.equal(exchanged.status, 200, 'the refused exchange left the code as it was');

      const refreshWithout = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token as string });
      assert.equal(refreshWithout.status, 400);
      assert.equal(refreshWithout.body.error, 'invalid_request');
      const refreshed = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token as string, client_id: clientId });
      assert.equal(refreshed.status, 200, 'the refused refresh did not rotate the token');
    });

    it('refuses a refresh while the acting member, the consenting human or the agent\'s operator is suspended', async () => {
      const dana = await server.human('escape-dana');
      await seedAgent(server, 'escape-dana-agent', dana.handle, 'active');
      for (const suspended of ['escape-dana-agent', dana.handle]) {
        const tokens = await grantTokens(server, dana.session, { acting_member: 'escape-dana-agent', resource: 'rest' });
        await setMemberStatus(server, suspended, 'suspended');
        const refused = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.clientId });
        assert.equal(refused.status, 400, suspended);
        assert.equal(refused.body.error, 'invalid_grant', suspended);
        await setMemberStatus(server, suspended, 'active');
        const reinstated = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.clientId });
        assert.equal(reinstated.status, 200, `${suspended}: the refused refresh left the token usable`);
      }
      // The consenting human acting as themselves.
      const erin = await server.human('escape-erin');
      const own = await grantTokens(server, erin.session, { acting_member: erin.handle });
      await setMemberStatus(server, erin.handle, 'suspended');
      const refused = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: own.refresh_token, client_id: own.clientId });
      assert.equal(refused.body.error, 'invalid_grant');
    });

    it('names the scope to ask for in every 401 challenge, at /v0/mcp and REST', async () => {
      const mcp = await fetch(`${server.url}/v0/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(mcp.status, 401);
      assert.equal(mcp.headers.get('www-authenticate'), `Bearer realm="atrium", resource_metadata="${server.url}/.well-known/oauth-protected-resource/v0/mcp", scope="read write"`);
      const rest = await server.request('GET', '/v0/me');
      assert.equal(rest.status, 401);
      assert.equal(rest.headers.get('www-authenticate'), `Bearer realm="atrium", resource_metadata="${server.url}/.well-known/oauth-protected-resource/v0", scope="read write"`);
      const bad = await server.request('GET', '/v0/me', { token: 'at_atrium_nosuchtoken' });
      assert.equal(bad.status, 401);
      assert.equal(bad.headers.get('www-authenticate'), `Bearer realm="atrium", resource_metadata="${server.url}/.well-known/oauth-protected-resource/v0", error="invalid_token", scope="read write"`);
    });
  });
}
