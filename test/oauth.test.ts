import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedAgent, setMemberStatus } from './support/seed.js';
import { TestClock } from './support/clock.js';
import { McpCaller } from './support/mcp.js';
import {
  approve,
  authorize,
  DocumentServer,
  grantTokens,
  pkce,
  postForm,
  REDIRECT_URI,
  registerClient,
  startAuthorization,
} from './support/oauth.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

async function count(server: TestServer, table: 'oauth_clients' | 'oauth_authorization_requests' | 'oauth_grants' | 'oauth_tokens'): Promise<number> {
  const row = await server.app.ctx.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function mcpStatus(server: TestServer, token: string, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }): Promise<Response> {
  return fetch(`${server.url}/v0/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body),
  });
}

for (const backend of backends()) {
  describe(`OAuth authorization server (${backend})`, () => {
    let server: TestServer;
    let documents: DocumentServer;
    const clock = new TestClock(Date.now());
    let alice: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend, { clock, env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8', ATRIUM_OAUTH_REGISTRATION_RATE_LIMIT: '100000', ATRIUM_OAUTH_AUTHORIZATION_RATE_LIMIT: '100000' } });
      documents = await DocumentServer.start();
      alice = await server.human('oauth-alice');
    });
    after(async () => {
      await documents.stop();
      await server.stop();
    });

    describe('discovery', () => {
      it('serves Protected Resource Metadata for the MCP endpoint and the REST API', async () => {
        for (const [path, resource] of [
          ['/.well-known/oauth-protected-resource/v0/mcp', `${server.url}/v0/mcp`],
          ['/.well-known/oauth-protected-resource/v0', `${server.url}/v0`],
        ] as const) {
          const res = await fetch(server.url + path);
          assert.equal(res.status, 200);
          const body = (await res.json()) as Record<string, unknown>;
          assert.equal(body.resource, resource);
          assert.deepEqual(body.authorization_servers, [server.url]);
          assert.deepEqual(body.scopes_supported, ['read', 'write']);
        }
      });

      it('serves Authorization Server Metadata with the issuer and what it supports', async () => {
        const res = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
        assert.equal(res.status, 200);
        const body = (await res.json()) as Record<string, unknown>;
        assert.equal(body.issuer, server.url);
        assert.deepEqual(body.code_challenge_methods_supported, ['S256']);
        assert.deepEqual(body.scopes_supported, ['read', 'write']);
        assert.equal(body.client_id_metadata_document_supported, true);
        assert.equal(body.authorization_response_iss_parameter_supported, true);
        for (const field of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint']) {
          assert.ok(String(body[field]).startsWith(server.url), field);
        }
      });

      it('lets a browser-based client read the metadata and call the token endpoint from its own origin', async () => {
        const preflight = await fetch(`${server.url}/.well-known/oauth-authorization-server`, {
          method: 'OPTIONS',
          headers: { origin: 'https://client.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' },
        });
        assert.equal(preflight.status, 204);
        assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
        assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /mcp-protocol-version/);
        const token = await postForm(server, '/oauth/token', { grant_type: 'password' });
        assert.equal(token.status, 400);
        assert.equal(token.body.error, 'unsupported_grant_type');
        assert.equal(token.headers.get('access-control-allow-origin'), '*');
        assert.equal(token.headers.get('cache-control'), 'no-store');
      });

      it('names the resource metadata in every 401, and says invalid_token when a token was presented', async () => {
        const mcp = await fetch(`${server.url}/v0/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        assert.equal(mcp.status, 401);
        assert.equal(mcp.headers.get('www-authenticate'), `Bearer realm="atrium", resource_metadata="${server.url}/.well-known/oauth-protected-resource/v0/mcp", scope="read write"`);
        const mcpBad = await mcpStatus(server, 'at_atrium_nosuchtoken');
        assert.equal(mcpBad.status, 401);
        assert.match(mcpBad.headers.get('www-authenticate')!, /resource_metadata=".*\/v0\/mcp", error="invalid_token", scope="read write"$/);
        const rest = await server.request('GET', '/v0/me');
        assert.equal(rest.headers.get('www-authenticate'), `Bearer realm="atrium", resource_metadata="${server.url}/.well-known/oauth-protected-resource/v0", scope="read write"`);
        const restBad = await server.request('GET', '/v0/me', { token: 'at_atrium_nosuchtoken' });
        assert.equal(restBad.status, 401);
        assert.match(restBad.headers.get('www-authenticate')!, /error="invalid_token", scope="read write"$/);
      });
    });

    describe('the code flow', () => {
      it('turns consent into tokens that act as the person at the MCP endpoint', async () => {
        const tokens = await grantTokens(server, alice.session, { acting_member: alice.handle });
        assert.equal(tokens.scope, 'read write');
        const mcp = await McpCaller.connect(server, tokens.access_token);
        const me = await mcp.ok('get_me', {});
        assert.equal((me.json as { handle: string }).handle, alice.handle);
        await mcp.close();
      });

      it('works only at the resource the token was issued for', async () => {
        const forMcp = await grantTokens(server, alice.session, { acting_member: alice.handle });
        const atRest = await server.request('GET', '/v0/me', { token: forMcp.access_token });
        assert.equal(atRest.status, 401);
        assert.match(atRest.headers.get('www-authenticate')!, /error="invalid_token"/);
        const forRest = await grantTokens(server, alice.session, { acting_member: alice.handle, resource: 'rest' });
        assert.equal((await server.request('GET', '/v0/me', { token: forRest.access_token })).status, 200);
        assert.equal((await mcpStatus(server, forRest.access_token)).status, 401);
      });

      it('refuses a redirect URI the client did not register with 400, never redirecting', async () => {
        const clientId = await registerClient(server);
        const { challenge } = pkce();
        const res = await authorize(server, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: 'https://attacker.example/callback',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        assert.equal(res.status, 400);
        assert.equal(res.location, null);
        assert.equal(JSON.parse(res.body).error, 'invalid_request');
        const unknown = await authorize(server, { response_type: 'code', client_id: 'client_nosuchclient', redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256' });
        assert.equal(unknown.status, 400);
        assert.equal(unknown.location, null);
        assert.equal(JSON.parse(unknown.body).error, 'invalid_client');
      });

      it('accepts a loopback redirect URI on any port', async () => {
        const clientId = await registerClient(server, ['http://127.0.0.1/callback']);
        await startAuthorization(server, clientId, { redirectUri: 'http://127.0.0.1:51234/callback' });
      });

      it('sends plain, missing PKCE and unknown scopes or resources back to the client with the error, state and iss', async () => {
        const clientId = await registerClient(server);
        const { challenge } = pkce();
        const base = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, state: 'xyz' };
        const requestsBefore = await count(server, 'oauth_authorization_requests');
        for (const [query, error] of [
          [{ code_challenge: challenge, code_challenge_method: 'plain' }, 'invalid_request'],
          [{ code_challenge: challenge }, 'invalid_request'],
          [{}, 'invalid_request'],
          [{ code_challenge: challenge, code_challenge_method: 'S256', scope: 'admin' }, 'invalid_scope'],
          [{ code_challenge: challenge, code_challenge_method: 'S256', resource: 'https://elsewhere.example/v0/mcp' }, 'invalid_target'],
        ] as const) {
          const res = await authorize(server, { ...base, ...query });
          assert.equal(res.status, 302);
          const back = new URL(res.location!);
          assert.equal(back.origin + back.pathname, REDIRECT_URI);
          assert.equal(back.searchParams.get('error'), error, JSON.stringify(query));
          assert.equal(back.searchParams.get('state'), 'xyz');
          assert.equal(back.searchParams.get('iss'), server.url);
        }
        assert.equal(await count(server, 'oauth_authorization_requests'), requestsBefore, 'nothing is stored for a refused request');
      });

      it('refuses a wrong or missing verifier, and leaves the code as it was', async () => {
        const clientId = await registerClient(server);
        const start = await startAuthorization(server, clientId);
        const code = await approve(server, alice.session, start, { acting_member: alice.handle });
        const tokensBefore = await count(server, 'oauth_tokens');
        const wrong = await postForm(server, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: pkce().verifier, client_id: clientId, redirect_uri: REDIRECT_URI });
        assert.equal(wrong.status, 400);
        assert.equal(wrong.body.error, 'invalid_grant');
        const missing = await postForm(server, '/oauth/token', { grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT_URI });
        assert.equal(missing.status, 400);
        assert.equal(missing.body.error, 'invalid_request');
        assert.equal(await count(server, 'oauth_tokens'), tokensBefore);
        const right = await postForm(server, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: start.verifier, client_id: clientId, redirect_uri: REDIRECT_URI });
        assert.equal(right.status, 200);
      });

      it('revokes what a code produced when the code is used twice', async () => {
        const clientId = await registerClient(server);
        const start = await startAuthorization(server, clientId);
        const code = await approve(server, alice.session, start, { acting_member: alice.handle });
        const form = { grant_type: 'authorization_code', code, code_verifier: start.verifier, client_id: clientId, redirect_uri: REDIRECT_URI };
        const first = await postForm(server, '/oauth/token', form);
        assert.equal(first.status, 200);
        assert.equal((await mcpStatus(server, first.body.access_token as string)).status, 200);
        const second = await postForm(server, '/oauth/token', form);
        assert.equal(second.status, 400);
        assert.equal(second.body.error, 'invalid_grant');
        assert.equal((await mcpStatus(server, first.body.access_token as string)).status, 401, 'the first exchange\'s tokens stop');
        const refreshed = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string, client_id: clientId });
        assert.equal(refreshed.body.error, 'invalid_grant');
      });

      it('refuses a code after its 60 seconds', async () => {
        const clientId = await registerClient(server);
        const start = await startAuthorization(server, clientId);
        const code = await approve(server, alice.session, start, { acting_member: alice.handle });
        clock.advance(61_000);
        const late = await postForm(server, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: start.verifier, client_id: clientId, redirect_uri: REDIRECT_URI });
        assert.equal(late.status, 400);
        assert.equal(late.body.error, 'invalid_grant');
      });

      it('rotates refresh tokens, and revokes the grant when a rotated one is presented again', async () => {
        const tokens = await grantTokens(server, alice.session, { acting_member: alice.handle });
        const refreshed = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.clientId });
        assert.equal(refreshed.status, 200);
        assert.notEqual(refreshed.body.refresh_token, tokens.refresh_token);
        const fresh = refreshed.body.access_token as string;
        assert.equal((await mcpStatus(server, fresh)).status, 200);
        const replay = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.clientId });
        assert.equal(replay.status, 400);
        assert.equal(replay.body.error, 'invalid_grant');
        assert.equal((await mcpStatus(server, fresh)).status, 401, 'the replay revoked the whole grant');
        const events = await server.request('GET', '/v0/events?limit=200', { token: STEWARD_KEY });
        const revoked = (events.body.events as Array<{ type: string; payload: { reason?: string } }>).filter((e) => e.type === 'oauth_grant_revoked');
        assert.ok(revoked.some((e) => e.payload.reason === 'refresh_replayed'));
      });

      it('stops an access token after its hour', async () => {
        const tokens = await grantTokens(server, alice.session, { acting_member: alice.handle });
        clock.advance(60 * 60 * 1000 + 1000);
        assert.equal((await mcpStatus(server, tokens.access_token)).status, 401);
        const refreshed = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.clientId });
        assert.equal((await mcpStatus(server, refreshed.body.access_token as string)).status, 200);
      });

      it('revokes tokens by RFC 7009: an access token alone, or a refresh token with its grant', async () => {
        const tokens = await grantTokens(server, alice.session, { acting_member: alice.handle });
        assert.equal((await postForm(server, '/oauth/revoke', { token: tokens.access_token, client_id: tokens.clientId })).status, 200);
        assert.equal((await mcpStatus(server, tokens.access_token)).status, 401);
        const refreshed = await postForm(server, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.clientId });
        assert.equal(refreshed.status, 200);
        assert.equal((await postForm(server, '/oauth/revoke', { token: refreshed.body.refresh_token as string })).status, 200);
        assert.equal((await mcpStatus(server, refreshed.body.access_token as string)).status, 401);
        assert.equal((await postForm(server, '/oauth/revoke', { token: 'rt_atrium_unknown' })).status, 200, 'an unknown token is answered alike');
      });
    });

    describe('clients', () => {
      it('uses a Client ID Metadata Document served on an allow-listed address', async () => {
        const url = `${documents.url}/good/client.json`;
        documents.json('/good/client.json', { client_id: url, client_name: 'Loopback Agent', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });
        const start = await startAuthorization(server, url);
        const view = await server.request('GET', `/v0/oauth-authorization-requests/${start.requestId}`, { token: alice.session });
        assert.equal(view.status, 200);
        assert.equal(view.body.client_name, 'Loopback Agent');
        assert.equal(view.body.client_host, new URL(documents.url).host);
        assert.equal(view.body.redirect_host, '127.0.0.1:9');
        assert.equal(view.body.scope, 'read write');
        const code = await approve(server, alice.session, start, { acting_member: alice.handle });
        const token = await postForm(server, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: start.verifier, client_id: url, redirect_uri: REDIRECT_URI });
        assert.equal(token.status, 200);
      });

      it('refuses a metadata document that is private, loopback outside the allow-list, slow, huge, redirecting, not JSON or names another client, storing nothing', async () => {
        const good = (url: string) => ({ client_id: url, redirect_uris: [REDIRECT_URI] });
        const cases: Array<[string, string]> = [
          ['private', 'http://10.255.255.1/client.json'],
          ['loopback outside the allow-list', `http://[::1]:${new URL(documents.url).port}/client.json`],
          ['huge', documents.raw('/huge.json', (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...good(`${documents.url}/huge.json`), padding: 'x'.repeat(70 * 1024) })))],
          ['redirecting', documents.raw('/redirect.json', (_q, res) => res.writeHead(302, { location: `${documents.url}/good/client.json` }).end())],
          ['not JSON', documents.raw('/text.json', (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'))],
          ['another client_id', documents.json('/other.json', good(`${documents.url}/someone-else.json`))],
          ['slow', documents.raw('/slow.json', () => undefined)],
        ];
        const clientsBefore = await count(server, 'oauth_clients');
        const requestsBefore = await count(server, 'oauth_authorization_requests');
        for (const [what, url] of cases) {
          const res = await authorize(server, { response_type: 'code', client_id: url, redirect_uri: REDIRECT_URI, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
          assert.equal(res.status, 400, what);
          assert.equal(res.location, null, what);
          assert.equal(JSON.parse(res.body).error, 'invalid_client', what);
        }
        assert.equal(await count(server, 'oauth_clients'), clientsBefore);
        assert.equal(await count(server, 'oauth_authorization_requests'), requestsBefore);
      });

      it('shows a browser a page in plain words for every fault it cannot redirect, and keeps JSON for programs', async () => {
        const clientId = await registerClient(server);
        const { challenge } = pkce();
        const query = { response_type: 'code', redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256' };
        const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
        const cases: Array<[string, Record<string, string>, string, RegExp]> = [
          ['unknown client', { ...query, client_id: 'client_nosuchclient' }, 'invalid_client', /This program is not known here/],
          ['redirect URI mismatch', { ...query, client_id: clientId, redirect_uri: 'https://attacker.example/callback' }, 'invalid_request', /an address it does not own/],
          ['no client_id', query, 'invalid_request', /did not say who it is/],
          [
            'unreachable metadata document',
            { ...query, client_id: 'https://client.invalid/oauth/client.json' },
            'invalid_client',
            /could not fetch it from there[\s\S]*register with [^ ]+ directly instead \(dynamic client registration\)/,
          ],
        ];
        for (const [what, q, error, words] of cases) {
          const url = `${server.url}/oauth/authorize?${new URLSearchParams(q).toString()}`;
          const page = await fetch(url, { redirect: 'manual', headers: { accept: browserAccept } });
          assert.equal(page.status, 400, what);
          assert.equal(page.headers.get('location'), null, what);
          assert.match(page.headers.get('content-type') ?? '', /^text\/html/, what);
          assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/, what);
          const html = await page.text();
          assert.match(html, words, what);
          assert.match(html, new RegExp(`<code>${error}</code>`), what);
          assert.doesNotMatch(html, /<script/i, what);
          if (what === 'unreachable metadata document') assert.match(html, /a document on client\.invalid/);
          for (const accept of [undefined, 'application/json', '*/*']) {
            const json = await fetch(url, { redirect: 'manual', headers: accept ? { accept } : {} });
            assert.equal(json.status, 400, `${what}, ${accept}`);
            assert.match(json.headers.get('content-type') ?? '', /^application\/json/, `${what}, ${accept}`);
            assert.equal(((await json.json()) as { error: string }).error, error, `${what}, ${accept}`);
          }
        }
      });

      it("bounds the request by the document's redirect URIs", async () => {
        const url = documents.json('/bounded.json', { client_id: `${documents.url}/bounded.json`, redirect_uris: ['https://app.example/callback'] });
        const res = await authorize(server, { response_type: 'code', client_id: url, redirect_uri: REDIRECT_URI, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
        assert.equal(res.status, 400);
        assert.equal(res.location, null);
      });
    });

    describe('consent', () => {
      it('needs a signed-in person, and offers only their active, confirmed agents', async () => {
        const bob = await server.human('oauth-bob');
        await seedAgent(server, 'oauth-bob-active', bob.handle, 'active');
        await seedAgent(server, 'oauth-bob-pending', bob.handle, 'pending');
        await seedAgent(server, 'oauth-bob-unconfirmed', bob.handle, 'active', { confirmed: false });
        const start = await startAuthorization(server, await registerClient(server));
        assert.equal((await server.request('GET', `/v0/oauth-authorization-requests/${start.requestId}`)).status, 401);
        const view = await server.request('GET', `/v0/oauth-authorization-requests/${start.requestId}`, { token: bob.session });
        assert.deepEqual(
          view.body.acting_choices.map((c: { handle: string }) => c.handle),
          [bob.handle, 'oauth-bob-active'],
        );
        for (const agent of ['oauth-bob-pending', 'oauth-bob-unconfirmed']) {
          const refused = await server.request('POST', `/v0/oauth-authorization-requests/${start.requestId}/approve`, {
            token: bob.session,
            body: { acting_member: agent, scope: 'read write', spaces: null },
          });
          assert.equal(refused.status, 403, agent);
        }
        const someoneElses = await server.request('POST', `/v0/oauth-authorization-requests/${start.requestId}/approve`, {
          token: bob.session,
          body: { acting_member: alice.handle, scope: 'read write', spaces: null },
        });
        assert.equal(someoneElses.status, 403);
        assert.equal(await count(server, 'oauth_grants'), Number(await count(server, 'oauth_grants')));
      });

      it('refuses a cookie-authenticated decision from another origin (CSRF)', async () => {
        const start = await startAuthorization(server, await registerClient(server));
        for (const origin of [undefined, 'https://attacker.example']) {
          const res = await server.request('POST', `/v0/oauth-authorization-requests/${start.requestId}/approve`, {
            headers: { cookie: `atrium_session=${alice.session}`, ...(origin ? { origin } : {}) },
            body: { acting_member: alice.handle, scope: 'read write', spaces: null },
          });
          assert.equal(res.status, 403, String(origin));
        }
        const same = await server.request('POST', `/v0/oauth-authorization-requests/${start.requestId}/approve`, {
          headers: { cookie: `atrium_session=${alice.session}`, origin: server.url },
          body: { acting_member: alice.handle, scope: 'read write', spaces: null },
        });
        assert.equal(same.status, 200);
      });

      it('sends a denial back as access_denied, granting nothing', async () => {
        const start = await startAuthorization(server, await registerClient(server));
        const grantsBefore = await count(server, 'oauth_grants');
        const res = await server.request('POST', `/v0/oauth-authorization-requests/${start.requestId}/deny`, { token: alice.session, body: {} });
        assert.equal(res.status, 200);
        const back = new URL(res.body.redirect_to);
        assert.equal(back.searchParams.get('error'), 'access_denied');
        assert.equal(back.searchParams.get('state'), start.state);
        assert.equal(back.searchParams.get('iss'), server.url);
        assert.equal(await count(server, 'oauth_grants'), grantsBefore);
        assert.equal((await server.request('POST', `/v0/oauth-authorization-requests/${start.requestId}/deny`, { token: alice.session, body: {} })).status, 409);
      });
    });

    describe('narrowing', () => {
      let owner: { handle: string; session: string };
      before(async () => {
        owner = await server.human('oauth-owner', { role: 'owner' });
        for (const slug of ['oauth-inside', 'oauth-outside']) {
          await activeSpace(server, owner.session, slug, 'invite');
          assert.equal((await server.request('POST', `/v0/spaces/${slug}/invitations`, { token: owner.session, body: { member: alice.handle } })).status, 201);
          assert.equal((await server.request('POST', `/v0/spaces/${slug}/join`, { token: alice.session })).status, 200);
        }
      });

      it('gives a read grant 403 insufficient_scope on every write, over REST and MCP', async () => {
        const rest = await grantTokens(server, alice.session, { acting_member: alice.handle, scope: 'read', resource: 'rest' });
        assert.equal(rest.scope, 'read');
        assert.equal((await server.request('GET', '/v0/spaces/oauth-inside', { token: rest.access_token })).status, 200);
        const write = await server.request('POST', '/v0/spaces/oauth-inside/channels', { token: rest.access_token, body: { name: 'nope' } });
        assert.equal(write.status, 403);
        assert.match(write.headers.get('www-authenticate')!, /error="insufficient_scope", scope="write"/);
        const mcp = await grantTokens(server, alice.session, { acting_member: alice.handle, scope: 'read' });
        const call = await mcpStatus(server, mcp.access_token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_channel', arguments: { slug: 'oauth-inside', name: 'nope' } } });
        assert.equal(call.status, 403);
        assert.match(call.headers.get('www-authenticate')!, /resource_metadata=".*\/v0\/mcp", error="insufficient_scope", scope="write"/);
        const caller = await McpCaller.connect(server, mcp.access_token);
        await caller.ok('get_space', { slug: 'oauth-inside' });
        await caller.close();
      });

      it('reads only what is public and writes nothing outside the grant\'s Spaces; the inbox shows only its Spaces', async () => {
        for (const slug of ['oauth-inside', 'oauth-outside']) {
          const posted = await server.request('POST', `/v0/spaces/${slug}/channels/general/messages`, { token: owner.session, body: { body: `hello @${alice.handle}` } });
          assert.equal(posted.status, 201);
        }
        const tokens = await grantTokens(server, alice.session, { acting_member: alice.handle, spaces: ['oauth-inside'], resource: 'rest' });
        assert.equal((await server.request('GET', '/v0/spaces/oauth-inside/channels', { token: tokens.access_token })).status, 200);
        const outside = await server.request('GET', '/v0/spaces/oauth-outside/channels', { token: tokens.access_token });
        assert.ok([401, 403].includes(outside.status), `an invite-only Space outside the grant is closed (${outside.status})`);
        assert.equal((await server.request('POST', '/v0/spaces/oauth-outside/channels', { token: tokens.access_token, body: { name: 'nope' } })).status, 403);
        assert.equal((await server.request('POST', '/v0/spaces/oauth-inside/channels', { token: tokens.access_token, body: { name: 'inside-ok' } })).status, 201);
        assert.equal((await server.request('POST', '/v0/spaces', { token: tokens.access_token, body: { slug: 'oauth-new', name: 'new', join_policy: 'open' } })).status, 403);
        const everywhere = await server.request('GET', '/v0/me/inbox-events', { token: alice.session });
        assert.deepEqual([...new Set(everywhere.body.events.map((e: { space: string }) => e.space))].sort(), ['oauth-inside', 'oauth-outside']);
        const inbox = await server.request('GET', '/v0/me/inbox-events', { token: tokens.access_token });
        assert.equal(inbox.status, 200);
        assert.deepEqual([...new Set(inbox.body.events.map((e: { space: string }) => e.space))], ['oauth-inside']);
      });

      it('acts as the chosen agent with its authority, and stops when the agent, or the human, is suspended', async () => {
        const dana = await server.human('oauth-dana');
        await seedAgent(server, 'oauth-dana-agent', dana.handle, 'active');
        const tokens = await grantTokens(server, dana.session, { acting_member: 'oauth-dana-agent', resource: 'rest' });
        const me = await server.request('GET', '/v0/me', { token: tokens.access_token });
        assert.equal(me.body.handle, 'oauth-dana-agent');
        await setMemberStatus(server, 'oauth-dana-agent', 'suspended');
        assert.equal((await server.request('GET', '/v0/me', { token: tokens.access_token })).status, 403);
        await setMemberStatus(server, 'oauth-dana-agent', 'active');
        assert.equal((await server.request('GET', '/v0/me', { token: tokens.access_token })).status, 200);
        await setMemberStatus(server, dana.handle, 'suspended');
        assert.equal((await server.request('GET', '/v0/me', { token: tokens.access_token })).status, 403);
      });
    });

    describe('grants', () => {
      it('lists the person\'s grants and revokes one at once, with events', async () => {
        const erin = await server.human('oauth-erin');
        const tokens = await grantTokens(server, erin.session, { acting_member: erin.handle, scope: 'read' });
        const listed = await server.request('GET', '/v0/oauth-grants', { token: erin.session });
        assert.equal(listed.status, 200);
        assert.equal(listed.body.grants.length, 1);
        const grant = listed.body.grants[0];
        assert.equal(grant.acting_member, erin.handle);
        assert.equal(grant.scope, 'read');
        assert.equal(grant.spaces, null);
        assert.equal(grant.client_name, 'Test client');
        assert.equal((await mcpStatus(server, tokens.access_token)).status, 200);
        assert.equal((await server.request('GET', '/v0/oauth-grants', { token: alice.session })).body.grants.some((g: { id: string }) => g.id === grant.id), false);
        assert.equal((await server.request('POST', `/v0/oauth-grants/${grant.id}/revoke`, { token: alice.session, body: {} })).status, 404);
        const revoked = await server.request('POST', `/v0/oauth-grants/${grant.id}/revoke`, { token: erin.session, body: {} });
        assert.equal(revoked.status, 200);
        assert.ok(revoked.body.revoked_ts);
        assert.equal((await mcpStatus(server, tokens.access_token)).status, 401);
        const events = await server.request('GET', '/v0/events?limit=500', { token: STEWARD_KEY });
        const types = (events.body.events as Array<{ type: string; payload: { id?: string } }>).filter((e) => e.payload.id === grant.id).map((e) => e.type);
        assert.deepEqual(types, ['oauth_grant_created', 'oauth_grant_revoked']);
      });
    });
  });
}

for (const backend of backends()) {
  describe(`OAuth limits per address (${backend})`, () => {
    let server: TestServer;
    const clock = new TestClock(Date.now());
    before(async () => {
      server = await startServer(backend, { clock, env: { ATRIUM_OAUTH_REGISTRATION_RATE_LIMIT: '3', ATRIUM_OAUTH_AUTHORIZATION_RATE_LIMIT: '3' } });
    });
    after(() => server.stop());

    it('limits registrations per address, storing nothing beyond the limit', async () => {
      for (let i = 0; i < 3; i++) await registerClient(server);
      const before = await count(server, 'oauth_clients');
      const flood = await fetch(`${server.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI] }),
      });
      assert.equal(flood.status, 429);
      assert.ok(flood.headers.get('retry-after'));
      assert.equal(((await flood.json()) as { error: string }).error, 'too_many_requests');
      assert.equal(await count(server, 'oauth_clients'), before);
      clock.advance(60 * 60 * 1000 + 1000);
    });

      it('registers public clients only, and forgets them after 30 days unused', async () => {
        const confidential = await fetch(`${server.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' }),
        });
        assert.equal(confidential.status, 400);
        assert.equal(((await confidential.json()) as { error: string }).error, 'invalid_client_metadata');
        const clientId = await registerClient(server);
        clock.advance(31 * 24 * 60 * 60 * 1000);
        const res = await authorize(server, { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
        assert.equal(res.status, 400);
        assert.equal(JSON.parse(res.body).error, 'invalid_client');
      });

      it('limits the authorizations one address starts, keeping nothing beyond the limit', async () => {
        clock.advance(60 * 60 * 1000 + 1000);
        const clientId = await registerClient(server);
        const query = () => ({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
        for (let i = 0; i < 3; i++) assert.equal((await authorize(server, query())).status, 302);
        const kept = await count(server, 'oauth_authorization_requests');
        const flood = await authorize(server, query());
        assert.equal(flood.status, 429);
        assert.equal(JSON.parse(flood.body).error, 'too_many_requests');
        assert.equal(await count(server, 'oauth_authorization_requests'), kept);
        const page = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(query()).toString()}`, { redirect: 'manual', headers: { accept: 'text/html' } });
        assert.equal(page.status, 429);
        assert.ok(page.headers.get('retry-after'));
        assert.match(await page.text(), /Too many requests to connect programs came from your network address/);
        clock.advance(60 * 60 * 1000 + 1000);
        assert.equal((await authorize(server, query())).status, 302, 'the next hour starts afresh');
      });

  });
}
