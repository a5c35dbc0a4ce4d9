import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';
import { Balancer, userAgent } from './support/balancer.js';
import { DocumentServer } from './support/oauth.js';
import { ensureWebBuild, launchBrowser, mailTo, outbox, Pages, type Mail } from './support/browser.js';
import { TestClock } from './support/clock.js';
import { seedAgent } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { startServer, type TestServer } from './support/server.js';

// An MCP client that is given nothing but Atrium's URL, end to end, with every
// part real: the official client SDK's OAuth client, two Atrium nodes on one
// PostgreSQL behind one address, and Chromium where the person signs in and
// consents. The balancer sends the browser to one node and the client to the
// other, so a revocation on the credentials page must reach the other node.

/** The client's side of OAuth, kept in memory as a desktop agent would keep it on disk. */
class MemoryProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(
    private readonly callback: string,
    /** Where the client publishes its Client ID Metadata Document, if it has one: then it never registers. */
    readonly clientMetadataUrl?: string,
  ) {}
  get redirectUrl(): string {
    return this.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Desk agent', redirect_uris: [this.callback], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The client's loopback redirect URI (RFC 8252): records what the browser brings back. */
async function callbackServer(): Promise<{ url: string; next: () => Promise<URLSearchParams>; stop: () => Promise<void> }> {
  const waiting: Array<(query: URLSearchParams) => void> = [];
  const server: Server = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this tab.');
    waiting.shift()?.(query);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');
}

describe('an MCP client connects by URL alone, with consent in the browser (postgres, two nodes)', () => {
  let balancer: Balancer;
  let browserNode: TestServer;
  let clientNode: TestServer;
  let browser: Browser;
  let pages: Pages;
  let mails: () => Promise<Mail[]>;
  let callback: Awaited<ReturnType<typeof callbackServer>>;
  let documents: DocumentServer;
  // The real time, moved on by hand only to let an access token expire.
  const clock = new TestClock(Date.now());
  let mcpUrl: URL;
  let idaSession: string;

  before(async () => {
    ensureWebBuild();
    const ports: { browser?: number; client?: number } = {};
    // Chromium's requests go to one node, everything else (the SDK) to the other.
    balancer = await Balancer.start((head) => (/Chrome/.test(userAgent(head)) ? ports.browser! : ports.client!));
    // Loopback is let through egress for the client's own metadata document, as a private deployment would allow it.
    const shared = { ATRIUM_BASE_URL: balancer.url, ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8,::1/128' };
    browserNode = await startServer('postgres', { clock, env: shared });
    clientNode = await startServer('postgres', { clock, env: shared, shareWith: browserNode });
    ports.browser = Number(new URL(browserNode.url).port);
    ports.client = Number(new URL(clientNode.url).port);
    mcpUrl = new URL(`${balancer.url}/v0/mcp`);
    browser = await launchBrowser();
    pages = new Pages(browser, { url: balancer.url });
    mails = outbox(browserNode);
    callback = await callbackServer();
    documents = await DocumentServer.start({ https: true });

    const ida = await browserNode.human('ida');
    idaSession = ida.session;
    await activeSpace(browserNode, ida.session, 'studio');
    assert.equal((await browserNode.request('POST', '/v0/spaces/studio/join', { token: ida.session })).status, 200);
    const scribe = await seedAgent(browserNode, 'scribe', 'ida', 'active');
    assert.equal((await browserNode.request('POST', '/v0/spaces/studio/join', { token: scribe.key })).status, 200);
  }, { timeout: 180_000 });
  afterEach(() => pages.finish(), { timeout: 60_000 });
  after(async () => {
    await browser?.close();
    await callback?.stop();
    await documents?.stop();
    await balancer?.stop();
    await clientNode?.stop();
    await browserNode?.stop();
  }, { timeout: 120_000 });

  /** Signs ida in on the sign-in page the consent page sent her to, and waits to be back. */
  async function signIn(page: Page): Promise<void> {
    await page.waitForURL((u) => u.pathname === '/sign-in', { timeout: 10_000 }).catch(async (err: Error) => {
      throw new Error(`${err.message}\nat ${page.url()}: ${await page.locator('main').textContent()}`);
    });
    await page.getByLabel('E-mail address').fill('ida@example.test');
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Sign-in code').waitFor();
    await page.getByLabel('Sign-in code').fill((await mailTo(mails, 'ida@example.test')).code);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/oauth/consent');
  }

  /**
   * What the browser brought back, once the page has arrived there: closing a
   * context while its page is still navigating could leave Chromium's close
   * pending for ever (the stall that once held this file to its limit).
   */
  async function returned(page: Page, back: Promise<URLSearchParams>): Promise<URLSearchParams> {
    const query = await back;
    await page.waitForURL((u) => u.href.startsWith(callback.url));
    return query;
  }

  /** Connects until the SDK asks for the browser; answers the URL it would open. */
  async function connectUntilConsent(provider: MemoryProvider): Promise<URL> {
    const client = new Client({ name: 'desk-agent', version: '1.0.0' });
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })), UnauthorizedError);
    assert.ok(provider.authorizationUrl, 'the SDK found the authorization endpoint from the 401');
    return provider.authorizationUrl;
  }

  /** Exchanges the code the browser brought back, and connects for real. */
  async function finish(provider: MemoryProvider, code: string): Promise<Client> {
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(code);
    const client = new Client({ name: 'desk-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    return client;
  }

  it('registers by DCR, is allowed as the person, calls a read and a write tool, refreshes, and stops once revoked in the browser', { timeout: 180_000 }, async () => {
    const provider = new MemoryProvider(callback.url);
    const authorizationUrl = await connectUntilConsent(provider);
    assert.equal(authorizationUrl.origin, balancer.url);
    assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorizationUrl.searchParams.get('resource'), mcpUrl.href);
    assert.match(String(provider.information?.client_id), /\S/, 'registered by DCR');

    const page = await pages.open();
    await page.goto(authorizationUrl.href);
    await signIn(page);
    await page.getByRole('heading', { level: 1, name: 'Connect a program to Atrium?' }).waitFor();
    assert.equal(await page.locator('q.client-name').first().textContent(), 'Desk agent');
    assert.match((await page.locator('.facts').textContent()) ?? '', /Returns to127\.0\.0\.1:\d+/);
    assert.ok(await page.getByLabel('Yourself, @ida').isChecked(), 'the person is the first choice');
    const back = callback.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    const query = await returned(page, back);
    assert.equal(query.get('iss'), balancer.url);
    const client = await finish(provider, query.get('code')!);

    const me = await client.callTool({ name: 'get_me', arguments: {} });
    assert.notEqual(me.isError, true, textOf(me));
    assert.match(textOf(me), /"handle":\s*"ida"/);
    const posted = await client.callTool({ name: 'post_message', arguments: { slug: 'studio', channel: 'general', body: 'Hello from a client that only knew the URL' } });
    assert.notEqual(posted.isError, true, textOf(posted));
    const messages = await browserNode.request('GET', '/v0/spaces/studio/channels/general/messages', { token: idaSession });
    assert.deepEqual(
      messages.body.messages.map((m: { author: string; body: string }) => [m.author, m.body]),
      [['ida', 'Hello from a client that only knew the URL']],
    );

    // An hour on, the access token has expired: the SDK refreshes (the refresh token rotates) and carries on.
    const firstTokens = provider.saved!;
    clock.advance(61 * 60 * 1000);
    const again = await client.callTool({ name: 'get_me', arguments: {} });
    assert.notEqual(again.isError, true, textOf(again));
    assert.notEqual(provider.saved!.access_token, firstTokens.access_token, 'a new access token');
    assert.notEqual(provider.saved!.refresh_token, firstTokens.refresh_token, 'the refresh token rotated');

    // The person revokes the grant on the credentials page (one node); the client's next call (the other node) is refused.
    await page.goto('/credentials');
    const row = page.getByRole('row', { name: /Desk agent/ });
    await row.getByRole('button', { name: 'Revoke “Desk agent” acting as @ida' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Its tokens no longer work.').waitFor();
    assert.match((await row.textContent()) ?? '', /Revoked/);
    // Its access token is refused at once, and so is the refresh the SDK then tries.
    await assert.rejects(client.callTool({ name: 'get_me', arguments: {} }), (err: Error) => err.name === 'InvalidGrantError');
    const raw = await fetch(`${clientNode.url}/v0/me`, { headers: { authorization: `Bearer ${provider.saved!.access_token}` } });
    assert.equal(raw.status, 401);
    await client.close();
  });

  it('lets the person allow their agent, read-only: the client acts as the agent and cannot write', { timeout: 180_000 }, async () => {
    const provider = new MemoryProvider(callback.url);
    const authorizationUrl = await connectUntilConsent(provider);
    const page = await pages.open();
    await page.goto(authorizationUrl.href);
    await signIn(page);
    await page.getByLabel('Your agent @scribe').check();
    await page.getByText("authority, never yours").waitFor();
    await page.getByLabel('Read only').check();
    await page.getByLabel('Only the Spaces I choose').check();
    await page.getByLabel(/studio/).check();
    const back = callback.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    const client = await finish(provider, (await returned(page, back)).get('code')!);

    const me = await client.callTool({ name: 'get_me', arguments: {} });
    assert.match(textOf(me), /"handle":\s*"scribe"/, 'the agent, never the person');
    const read = await client.callTool({ name: 'list_messages', arguments: { slug: 'studio', channel: 'general' } });
    assert.notEqual(read.isError, true, textOf(read));
    // A write is refused as MCP's authorization rules say: 403 with insufficient_scope, which the
    // SDK answers by asking for more (a new consent), never by getting it.
    await assert.rejects(
      client.callTool({ name: 'post_message', arguments: { slug: 'studio', channel: 'general', body: 'should not land' } }),
      (err: Error) => /\b403\b/.test(err.message),
    );
    const messages = await browserNode.request('GET', '/v0/spaces/studio/channels/general/messages', { token: idaSession });
    assert.ok(!JSON.stringify(messages.body).includes('should not land'));
    await client.close();

    await page.goto('/credentials');
    assert.match((await page.getByRole('row', { name: /@scribe/ }).textContent()) ?? '', /Read only.*studio/);
  });

  it('sends the browser back with access_denied when the person denies, and grants nothing', { timeout: 120_000 }, async () => {
    const provider = new MemoryProvider(callback.url);
    const authorizationUrl = await connectUntilConsent(provider);
    const page = await pages.open();
    await page.goto(authorizationUrl.href);
    await signIn(page);
    const back = callback.next();
    await page.getByRole('button', { name: 'Deny' }).click();
    const query = await returned(page, back);
    assert.equal(query.get('error'), 'access_denied');
    assert.equal(query.get('code'), null);
    assert.equal(query.get('state'), authorizationUrl.searchParams.get('state'));
  });

  it('identifies itself by a Client ID Metadata Document over https on loopback, then lists every tool and calls one', { timeout: 120_000 }, async () => {
    const documentUrl = `${documents.url}/desk-agent.json`;
    documents.json('/desk-agent.json', {
      client_id: documentUrl,
      client_name: 'Published desk agent',
      redirect_uris: [callback.url],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const provider = new MemoryProvider(callback.url, documentUrl);
    const authorizationUrl = await connectUntilConsent(provider);
    assert.equal(authorizationUrl.searchParams.get('client_id'), documentUrl, 'the document URL is the client id: no registration');

    const page = await pages.open();
    await page.goto(authorizationUrl.href);
    await signIn(page);
    assert.equal(await page.locator('q.client-name').first().textContent(), 'Published desk agent');
    assert.match((await page.locator('.facts').textContent()) ?? '', new RegExp(`Identified by${new URL(documentUrl).host}`));
    const back = callback.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    const client = await finish(provider, (await returned(page, back)).get('code')!);

    const { tools } = await client.listTools();
    assert.ok(tools.length > 80, `${tools.length} tools`);
    assert.ok(tools.some((t) => t.name === 'post_message' && t.annotations?.readOnlyHint === false));
    const me = await client.callTool({ name: 'get_me', arguments: {} });
    assert.match(textOf(me), /"handle":\s*"ida"/);
    await client.close();
  });
});
