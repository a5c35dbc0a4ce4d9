import { request as httpRequest } from 'node:http';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'kysely';
import type { ErrorCode } from '../src/shared/error-catalogue.js';
import { assertError } from './support/errors.js';
import { McpCaller, restCall } from './support/mcp.js';
import { seedAgent, setMemberStatus } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

/**
 * The HTTP side of `/v0/mcp`: who may connect at all, what the route answers
 * outside the MCP exchange, the body limit, argument validation with REST's
 * words, and that one caller's requests never see another's state.
 */

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

async function raw(server: TestServer, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<RawResponse> {
  const res = await fetch(`${server.url}/v0/mcp`, {
    method: init.method ?? 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** node:http, which (unlike fetch) sends the Host header it is given. */
function rawHttp(server: TestServer, headers: Record<string, string>, body: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.url}/v0/mcp`,
      { method: 'POST', headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Asserts that a raw answer is the error `code` with a `{detail}` body, and returns the detail. */
function detailOf(res: RawResponse, code: ErrorCode): string {
  const body = JSON.parse(res.text) as { detail?: unknown };
  assert.deepEqual(Object.keys(body), ['detail'], `an error body is {detail}: ${res.text}`);
  return assertError({ status: res.status, headers: res.headers, body }, code);
}

for (const backend of backends()) {
  describe(`MCP endpoint over HTTP (${backend})`, () => {
    let server: TestServer;
    let ada: { handle: string; session: string };
    let agent: { handle: string; key: string };
    let caller: McpCaller;

    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada', { role: 'owner' });
      agent = await seedAgent(server, 'scout', 'ada', 'active');
      for (const slug of ['plaza']) {
        assert.equal((await server.request('POST', '/v0/spaces', { token: ada.session, body: { slug, name: `The ${slug}` } })).status, 201);
        assert.equal((await server.request('POST', `/v0/spaces/${slug}/approve`, { token: ada.session })).status, 200);
      }
      caller = await McpCaller.connect(server, agent.key);
    });

    after(async () => {
      await caller?.close();
      await server?.stop();
    });

    it('answers a request without a bearer credential 401 with a Bearer challenge, cookies included', async () => {
      for (const headers of [{}, { cookie: `atrium_session=${ada.session}` }] as Array<Record<string, string>>) {
        const res = await raw(server, { headers, body: JSON.stringify(INITIALIZE) });
        assert.equal(res.headers.get('www-authenticate'), `Bearer realm="atrium", resource_metadata="${server.url}/.well-known/oauth-protected-resource/v0/mcp", scope="read write"`);
        // The words tell the caller what to send.
        assert.match(detailOf(res, 'credential_required'), /Authorization: Bearer/);
      }
    });

    it('answers a bad bearer credential 401 with an invalid_token challenge', async () => {
      const signedOut = await server.human('gone');
      assert.equal((await server.request('POST', '/v0/sign-out', { token: signedOut.session })).status, 204);
      for (const [authorization, code] of [
        ['Basic YWRhOnNlY3JldA==', 'credential_malformed'],
        ['Bearer sk_atrium_unknownunknownunknownunknownunknown00', 'key_invalid'],
        ['Bearer not-any-key-at-all', 'key_invalid'],
        [`Bearer ${signedOut.session}`, 'session_expired'],
      ] as Array<[string, ErrorCode]>) {
        const res = await raw(server, { headers: { authorization }, body: JSON.stringify(INITIALIZE) });
        assert.equal(res.headers.get('www-authenticate'), `Bearer realm="atrium", resource_metadata="${server.url}/.well-known/oauth-protected-resource/v0/mcp", error="invalid_token", scope="read write"`);
        detailOf(res, code);
      }
    });

    it('refuses the steward key: no tool can act with steward powers', async () => {
      const res = await raw(server, { headers: { authorization: `Bearer ${STEWARD_KEY}` }, body: JSON.stringify(INITIALIZE) });
      assert.equal(res.headers.get('www-authenticate'), null);
      detailOf(res, 'steward_key_refused');
      await assert.rejects(McpCaller.connect(server, STEWARD_KEY), (err: unknown) => err instanceof StreamableHTTPError && err.code === 403);
    });

    it('refuses a suspended member at once, and serves it again when reinstated', async () => {
      const member = await seedAgent(server, 'sleeper', 'ada', 'active');
      const connected = await McpCaller.connect(server, member.key);
      assert.equal((await connected.ok('get_me', {})).result.isError, undefined);
      await setMemberStatus(server, 'sleeper', 'suspended');
      // Stateless: every request authenticates again, so the open connection is refused too.
      await assert.rejects(connected.call('get_me', {}), (err: unknown) => err instanceof StreamableHTTPError && err.code === 403);
      await assert.rejects(McpCaller.connect(server, member.key), (err: unknown) => err instanceof StreamableHTTPError && err.code === 403);
      const res = await raw(server, { headers: { authorization: `Bearer ${member.key}` }, body: JSON.stringify(INITIALIZE) });
      detailOf(res, 'member_suspended');
      await setMemberStatus(server, 'sleeper', 'active');
      assert.equal(((await connected.ok('get_me', {})).json as { handle: string }).handle, 'sleeper');
      await connected.close();
    });

    it('lets a pending agent connect and list tools, and refuses its every action with 403', async () => {
      const pending = await seedAgent(server, 'waiting', 'ada', 'pending');
      const connected = await McpCaller.connect(server, pending.key);
      assert.ok(connected.tools.size > 0);
      const { detail, ...refused } = await connected.refused('post_message', { slug: 'plaza', channel: 'general', body: 'hi' });
      assert.deepEqual(refused, { code: 'member_pending', status: 403 });
      assert.equal(typeof detail, 'string');
      await connected.close();
    });

    it('is stateless: no session id, GET and DELETE are 405, and each request is answered on its own', async () => {
      const res = await raw(server, { headers: { authorization: `Bearer ${agent.key}` }, body: JSON.stringify(INITIALIZE) });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('mcp-session-id'), null);
      assert.equal((JSON.parse(res.text) as { result: { serverInfo: { name: string } } }).result.serverInfo.name, 'atrium');
      for (const method of ['GET', 'DELETE']) {
        const refused = await raw(server, { method, headers: { authorization: `Bearer ${agent.key}` } });
        detailOf(refused, 'method_not_allowed');
        assert.equal(refused.headers.get('allow'), 'POST');
        assert.equal((await raw(server, { method })).status, 401, `${method} without a credential`);
      }
    });

    it("never mixes two callers' answers, however their requests interleave", async () => {
      const other = await McpCaller.connect(server, ada.session);
      const calls = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? caller : other));
      const answers = await Promise.all(calls.map((c) => c.ok('get_me', {})));
      answers.forEach((a, i) => assert.equal((a.json as { handle: string }).handle, calls[i] === caller ? 'scout' : 'ada'));
      await other.close();
    });

    it("enforces Atrium's body limit, media type and JSON parsing, after authentication", async () => {
      const huge = JSON.stringify({ ...INITIALIZE, padding: 'x'.repeat(2 * 1024 * 1024) });
      const tooLarge = await raw(server, { headers: { authorization: `Bearer ${agent.key}` }, body: huge });
      const rest = await server.request('POST', '/v0/spaces/plaza/resources', { token: agent.key, rawBody: huge });
      assert.equal(detailOf(tooLarge, 'body_too_large'), rest.body.detail, 'the same limit and words as REST');
      assert.equal((await raw(server, { body: huge })).status, 401, 'no credential: refused before the body is read');

      const plain = await raw(server, { headers: { authorization: `Bearer ${agent.key}`, 'content-type': 'text/plain' }, body: 'hello' });
      detailOf(plain, 'unsupported_media_type');
      // Not JSON at all: JSON-RPC's own parse error, as the transport rules say.
      for (const body of ['', '{"jsonrpc": ', '\xff']) {
        const bad = await raw(server, { headers: { authorization: `Bearer ${agent.key}` }, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        const parsed = JSON.parse(bad.text) as { jsonrpc: string; id: null; error: { code: number; message: string } };
        assert.equal(parsed.jsonrpc, '2.0');
        assert.equal(parsed.id, null);
        assert.equal(parsed.error.code, -32700);
      }
    });

    it('refuses a foreign Origin or Host with 403 before anything else, and accepts its own', async () => {
      const auth = { authorization: `Bearer ${agent.key}` };
      const before = await server.request('GET', '/v0/spaces/plaza/events?since=0', { token: agent.key, unchecked: true });
      const post = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'post_message', arguments: { slug: 'plaza', channel: 'general', body: 'from a foreign page' } } });
      for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, { origin: server.url.replace('http:', 'https:') }]) {
        const refused = await raw(server, { headers: { ...auth, 'mcp-protocol-version': '2025-06-18', ...headers }, body: post });
        detailOf(refused, 'origin_refused');
      }
      // fetch always sends the URL's own Host; a rebinding browser sends the attacker's name.
      const rebound = await rawHttp(server, { ...auth, host: 'evil.example:80' }, post);
      detailOf(rebound, 'host_refused');
      // Refused before the credential is even looked at.
      assert.equal((await raw(server, { headers: { origin: 'https://evil.example' }, body: post })).status, 403);
      const after = await server.request('GET', '/v0/spaces/plaza/events?since=0', { token: agent.key, unchecked: true });
      assert.equal(after.body.events.length, before.body.events.length, 'nothing was posted');

      const port = new URL(server.url).port;
      assert.equal((await raw(server, { headers: { ...auth, origin: server.url }, body: JSON.stringify(INITIALIZE) })).status, 200);
      const loopback = await rawHttp(server, { ...auth, origin: `http://localhost:${port}`, host: `localhost:${port}` }, JSON.stringify(INITIALIZE));
      assert.equal(loopback.status, 200, 'every loopback name of a loopback base URL is the same server');
    });

    it("follows the protocol version's batching rule and bounds a batch", async () => {
      const auth = { authorization: `Bearer ${agent.key}` };
      const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
      const batch = JSON.stringify([list(1), list(2)]);
      for (const version of ['2025-06-18', '2025-11-25']) {
        const refused = await raw(server, { headers: { ...auth, 'mcp-protocol-version': version }, body: batch });
        assert.equal(refused.status, 400);
        const parsed = JSON.parse(refused.text) as { error: { code: number; message: string } };
        assert.equal(parsed.error.code, -32600);
        // JSON-RPC's code says only "invalid request": the words say which rule, batching, refused it.
        assert.match(parsed.error.message, /no JSON-RPC batches/);
      }
      const older = await raw(server, { headers: { ...auth, 'mcp-protocol-version': '2025-03-26' }, body: batch });
      assert.equal(older.status, 200);
      assert.deepEqual((JSON.parse(older.text) as Array<{ id: number }>).map((m) => m.id).sort(), [1, 2]);
      const max = server.app.ctx.config.mcpMaxBatch;
      const tooMany = JSON.stringify(Array.from({ length: max + 1 }, (_, i) => list(i + 1)));
      const capped = await raw(server, { headers: auth, body: tooMany });
      assert.equal(capped.status, 400);
      const parsed = JSON.parse(capped.text) as { error: { code: number; message: string } };
      assert.equal(parsed.error.code, -32600);
      // The words name the limit broken.
      assert.match(parsed.error.message, new RegExp(`at most ${max} messages`));
    });

    it('takes a Resource of the largest allowed size, and refuses one byte more like REST', async () => {
      const max = server.app.ctx.config.resourceMaxBytes;
      const created = await caller.ok('create_resource', { slug: 'plaza', name: 'Big', content: 'a'.repeat(max) });
      assert.equal((created.json as { current_version: number }).current_version, 1);
      const args = { slug: 'plaza', name: 'Too big', content: 'a'.repeat(max + 1) };
      const refused = await caller.refused('create_resource', args);
      assert.equal(refused.status, 422);
      const rest = await restCall(server, agent.key, 'create_resource', args);
      assert.deepEqual({ code: rest.headers.get('atrium-error'), status: rest.status, detail: rest.body.detail }, refused);
    });

    it("checks arguments against the tool's own input schema, exactly typed, in a tool's words", async () => {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['post_message', { slug: 'plaza', channel: 'general' }, 'arguments: missing required field "body"'],
        ['post_message', { slug: 'plaza', channel: 'general', body: '' }, 'body must NOT have fewer than 1 characters'],
        ['post_message', { slug: 'plaza', channel: 'general', body: 42 }, 'body must be string'],
        ['post_message', { slug: 'plaza', channel: 'general', body: 'nul \u0000 inside' }, 'body must be UTF-8 text without NUL characters or unpaired surrogates'],
        ['create_resource', { slug: 'plaza', name: 'N', content: 'x', colour: 'red' }, 'arguments: unknown field "colour"'],
        ['list_event_page', { slug: 'plaza', limit: 501 }, 'limit must be <= 500'],
        ['list_event_page', { slug: 'plaza', since: 'yesterday' }, 'since must be integer'],
        ['list_event_page', { slug: 'plaza', limit: '2' }, 'limit must be integer'],
        ['get_task', { slug: 'plaza', id: 'abc' }, 'id must be integer'],
        ['get_space', { slug: 5 }, 'slug must be string'],
        ['get_space', { slug: 'plaza', colour: 'red' }, 'arguments: unknown field "colour"'],
      ];
      for (const [name, args, detail] of cases) {
        const refused = await caller.refused(name, args);
        assert.deepEqual(refused, { code: 'validation_failed', status: 422, detail }, `${name} ${JSON.stringify(args)}`);
        assert.doesNotMatch(refused.detail, /querystring|params\.|body\./, 'no REST request parts in a tool error');
      }
      // As on REST, a NUL in a path or query value is refused before the credential is looked at.
      const sessionOnly = { slug: 'pla\u0000za' };
      assert.deepEqual(await caller.refused('approve_space', sessionOnly), { code: 'validation_failed', status: 422, detail: 'the URL must not contain NUL characters' });
      assert.equal((await restCall(server, agent.key, 'approve_space', sessionOnly)).status, 422);
      // The same call, correctly typed, succeeds.
      assert.equal(((await caller.ok('list_event_page', { slug: 'plaza', limit: 2 })).json as { events: unknown[] }).events.length, 2);
    });

    it('answers an unknown tool with a JSON-RPC error', async () => {
      await assert.rejects(
        caller.call('drop_tables', {}),
        (err: unknown) => err instanceof McpError && err.code === -32602 && err.message === 'MCP error -32602: unknown tool: drop_tables',
      );
    });

    it('answers an unexpected failure as a 500 tool error that leaks nothing, as REST does', async () => {
      await sql`alter table channels rename to channels_gone`.execute(server.app.ctx.db.kysely);
      try {
        assert.deepEqual(await caller.refused('list_channels', { slug: 'plaza' }), { code: 'internal_error', status: 500, detail: 'internal server error' });
        const rest = await server.request('GET', '/v0/spaces/plaza/channels', { token: agent.key });
        assert.deepEqual({ code: rest.headers.get('atrium-error'), status: rest.status, detail: rest.body.detail }, { code: 'internal_error', status: 500, detail: 'internal server error' });
      } finally {
        await sql`alter table channels_gone rename to channels`.execute(server.app.ctx.db.kysely);
      }
      assert.equal((await caller.ok('list_channels', { slug: 'plaza' })).result.isError, undefined);
    });
  });
}
