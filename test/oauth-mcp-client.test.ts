import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { TestClock } from './support/clock.js';
import { seedAgent } from './support/seed.js';
import { DocumentServer, REDIRECT_URI } from './support/oauth.js';
import { backends, startServer, type TestServer } from './support/server.js';

/** What an MCP client application keeps: its registration, tokens and PKCE verifier. */
class Provider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier: string | undefined;
  authorizationUrl: URL | undefined;
  constructor(info?: OAuthClientInformationMixed) {
    this.info = info;
  }
  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK client', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier!;
  }
}

function transportFor(server: TestServer, provider: Provider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${server.url}/v0/mcp`), { authProvider: provider });
}

/**
 * The official MCP SDK's OAuth client against the real server: it discovers
 * everything from the 401, registers or presents its metadata document, and
 * sends the person to consent; the person's decision is made here through the
 * consent operations, as the consent page makes it.
 */
async function connectThroughConsent(server: TestServer, provider: Provider, session: string, actingMember: string): Promise<Client> {
  const first = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  await assert.rejects(first.connect(transportFor(server, provider)), UnauthorizedError);
  assert.ok(provider.authorizationUrl, 'the client was sent to authorize');
  const authorized = await fetch(provider.authorizationUrl, { redirect: 'manual' });
  assert.equal(authorized.status, 302);
  const consent = new URL(authorized.headers.get('location')!);
  const requestId = consent.searchParams.get('request')!;
  const view = await server.request('GET', `/v0/oauth-authorization-requests/${requestId}`, { token: session });
  assert.equal(view.status, 200);
  const approved = await server.request('POST', `/v0/oauth-authorization-requests/${requestId}/approve`, {
    token: session,
    body: { acting_member: actingMember, scope: 'read write', spaces: null },
  });
  assert.equal(approved.status, 200);
  const code = new URL(approved.body.redirect_to).searchParams.get('code')!;
  const transport = transportFor(server, provider);
  await transport.finishAuth(code);
  const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

for (const backend of backends()) {
  describe(`The MCP SDK's OAuth client (${backend})`, () => {
    let server: TestServer;
    let documents: DocumentServer;
    const clock = new TestClock(Date.now());
    let person: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend, { clock, env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8' } });
      documents = await DocumentServer.start();
      person = await server.human('sdk-person');
      await seedAgent(server, 'sdk-agent', person.handle, 'active');
    });
    after(async () => {
      await documents.stop();
      await server.stop();
    });

    it('registers by DCR, consents as the person, lists and calls tools, and refreshes after the hour', async () => {
      const provider = new Provider();
      const client = await connectThroughConsent(server, provider, person.session, person.handle);
      assert.ok(provider.info?.client_id, 'the client registered');
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'get_me'));
      const me = await client.callTool({ name: 'get_me', arguments: {} });
      assert.equal(me.isError, undefined);
      assert.match(JSON.stringify(me.structuredContent), /sdk-person/);
      const proposed = await client.callTool({ name: 'propose_space', arguments: { slug: 'sdk-space', name: 'SDK', join_policy: 'open' } });
      assert.ok(!proposed.isError, JSON.stringify(proposed.content));
      const before = provider.saved!.access_token;
      clock.advance(60 * 60 * 1000 + 1000);
      const again = await client.callTool({ name: 'get_me', arguments: {} });
      assert.ok(!again.isError);
      assert.notEqual(provider.saved!.access_token, before, 'the client refreshed its token');
      await client.close();
    });

    it('presents a Client ID Metadata Document served on loopback, and consents as the agent', async () => {
      const url = `${documents.url}/sdk/client.json`;
      documents.json('/sdk/client.json', { client_id: url, client_name: 'SDK by document', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });
      const provider = new Provider({ client_id: url });
      const client = await connectThroughConsent(server, provider, person.session, 'sdk-agent');
      const me = await client.callTool({ name: 'get_me', arguments: {} });
      assert.match(JSON.stringify(me.structuredContent), /sdk-agent/);
      const grants = await server.request('GET', '/v0/oauth-grants', { token: person.session });
      const grant = grants.body.grants.find((g: { client_id: string }) => g.client_id === url);
      assert.equal(grant.client_name, 'SDK by document');
      assert.equal(grant.acting_member, 'sdk-agent');
      assert.equal((await server.request('POST', `/v0/oauth-grants/${grant.id}/revoke`, { token: person.session, body: {} })).status, 200);
      await assert.rejects(client.callTool({ name: 'get_me', arguments: {} }));
      await client.close().catch(() => undefined);
    });
  });
}
