import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { operation } from './support/mcp.js';
import { backends, startServer, type TestServer } from './support/server.js';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/**
 * `/v0/mcp` speaks MCP 2026-07-28 (stateless, `server/discover`, the
 * `Mcp-Method`/`Mcp-Name` headers, the per-request `_meta` envelope) beside
 * the 2025 revisions. A 2026-07-28 client (the v2 client SDK) and a
 * 2025-11-25 client (the 1.x SDK) see the same tools, annotations included,
 * as the reviewed snapshot, and every tool answers both alike: each client
 * drives its own twin server through the same calls, and each call must
 * reach its operation (a result, or a refusal with one of the operation's
 * documented statuses) and be answered the same in both revisions.
 */

const MODERN = '2026-07-28';
/** The budget test/mcp-parity.test.ts holds the 2025 `tools/list` to; the 2026-07-28 answer adds only its result fields. */
const TOOLS_LIST_BUDGET = 246_000;
const SNAPSHOT = new URL('./snapshots/mcp-tools.json', import.meta.url);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Answer {
  isError: boolean;
  status: number;
  detail?: string;
}

interface RevisionClient {
  revision: string;
  listTools(): Promise<Json[]>;
  call(name: string, args: Record<string, unknown>): Promise<Answer>;
  close(): Promise<void>;
}

function answerOf(result: Json): Answer {
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  return {
    isError: result.isError === true,
    status: meta['atrium/status'] as number,
    ...(result.isError ? { detail: meta['atrium/detail'] as string } : {}),
  };
}

async function connectModern(server: TestServer, token: string): Promise<RevisionClient> {
  const client = new ClientV2({ name: 'atrium-tests-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new TransportV2(new URL(`${server.url}/v0/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  return {
    revision: MODERN,
    listTools: async () => (await client.listTools()).tools as Json[],
    call: async (name, args) => answerOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

async function connectLegacy(server: TestServer, token: string): Promise<RevisionClient> {
  const client = new ClientV1({ name: 'atrium-tests-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${server.url}/v0/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return {
    revision: '2025-11-25',
    listTools: async () => (await client.listTools()).tools as Json[],
    call: async (name, args) => answerOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

/** Values for required arguments, by name where the name says what it is, else by schema. */
const NAMED: Record<string, unknown> = {
  slug: 'plaza',
  space: 'plaza',
  handle: 'bea',
  member: 'bea',
  member_handle: 'bea',
  to: 'bea',
  operator: 'ada',
  channel: 'general',
  name: 'revisions',
  email: 'someone@example.com',
  // Loopback is outside the egress rules here, so the refusal comes without a lookup.
  url: 'https://127.0.0.1/hook',
  path: 'README.md',
  run_id: 'revisions-run',
};

function sample(name: string, schema: Json): unknown {
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.anyOf) return sample(name, schema.anyOf[0]);
  if (name in NAMED && (schema.type === 'string' || schema.type === undefined)) return NAMED[name];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return Math.max(1, schema.minimum ?? 1);
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = sample(key, schema.properties[key]);
      return out;
    }
    default: {
      const prefixed = typeof schema.pattern === 'string' ? /^\^([a-z]+)_\[a-z2-7\]\{(\d+)\}\$$/.exec(schema.pattern) : null;
      if (prefixed) return `${prefixed[1]}_${'a'.repeat(Number(prefixed[2]))}`;
      if (name === 'request') return { method: 'GET', url: 'https://example.com/' };
      return 'mcp revisions';
    }
  }
}

/** Arguments that satisfy the tool's own input schema, so a call always reaches its operation. */
function argumentsFor(tool: Json): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const key of tool.inputSchema.required ?? []) args[key] = sample(key, tool.inputSchema.properties[key]);
  if (tool.name === 'call_external_service' || tool.name === 'issue_credential_ticket' || tool.name === 'create_credential_approval') {
    args.request = { method: 'GET', url: 'https://example.com/' };
  }
  return args;
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Raw {
  status: number;
  body: Json;
  /** The body's length as sent. */
  bytes: number;
}

/** One MCP 2026-07-28 request by hand: the envelope in `_meta`, the standard headers unless a test overrides them. */
async function modernRaw(server: TestServer, token: string, method: string, params: Record<string, unknown>, headers: Record<string, string | undefined> = {}): Promise<Raw> {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const all: Record<string, string | undefined> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
    ...headers,
  };
  const res = await fetch(`${server.url}/v0/mcp`, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: ENVELOPE } }),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), bytes: Buffer.byteLength(text) };
}

async function seed(server: TestServer): Promise<string> {
  const ada = await server.human('ada', { role: 'owner' });
  await server.human('bea');
  assert.equal((await server.request('POST', '/v0/spaces', { token: ada.session, body: { slug: 'plaza', name: 'The plaza' } })).status, 201);
  assert.equal((await server.request('POST', '/v0/spaces/plaza/approve', { token: ada.session })).status, 200);
  return ada.session;
}

for (const backend of backends()) {
  describe(`MCP revisions: 2026-07-28 and 2025-11-25 clients (${backend})`, () => {
    const servers: TestServer[] = [];
    let modern: RevisionClient;
    let legacy: RevisionClient;
    const snapshot = (JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as { tools: Json[] }).tools;

    const validators = new Map<string, ReturnType<InstanceType<typeof Ajv2020>['compile']>>();

    before(async () => {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addFormat('idn-email', /^[^@\s]+@[^@\s]+$/u);
      for (const tool of snapshot) validators.set(tool.name, ajv.compile(tool.inputSchema));
      for (let i = 0; i < 2; i++) servers.push(await startServer(backend));
      const sessions = await Promise.all(servers.map(seed));
      modern = await connectModern(servers[0]!, sessions[0]!);
      legacy = await connectLegacy(servers[1]!, sessions[1]!);
    });

    after(async () => {
      await modern?.close();
      await legacy?.close();
      for (const server of servers) await server.stop();
    });

    it('lists the same tools in both revisions, exactly the reviewed snapshot, each annotated from its declaration', async () => {
      for (const client of [modern, legacy]) {
        const tools = await client.listTools();
        // The SDK clients parse what they receive (key order may change); the raw bytes are checked below.
        assert.deepEqual(tools, snapshot, `${client.revision}: tools/list differs from test/snapshots/mcp-tools.json`);
        for (const tool of tools) {
          const op = operation(tool.name);
          const readOnly = op.readOnly === true;
          assert.equal(tool.title, op.summary, tool.name);
          assert.deepEqual(
            tool.annotations,
            { readOnlyHint: readOnly, destructiveHint: !readOnly && op.destructive === true, idempotentHint: readOnly || op.idempotent === true, openWorldHint: op.openWorld === true },
            `${client.revision}: ${tool.name}`,
          );
        }
      }
    });

    it('answers every tool alike in both revisions, each call reaching its operation', async () => {
      const answered: string[] = [];
      for (const tool of snapshot) {
        const args = argumentsFor(tool);
        const validate = validators.get(tool.name)!;
        assert.ok(validate(args), `${tool.name}: the test's arguments ${JSON.stringify(args)} do not fit the input schema: ${JSON.stringify(validate.errors)}`);
        const [a, b] = [await modern.call(tool.name, args), await legacy.call(tool.name, args)];
        assert.deepEqual(a, b, `${tool.name} ${JSON.stringify(args)}: 2026-07-28 and 2025-11-25 answered differently`);
        const op = operation(tool.name);
        if (a.isError) {
          const documented = [...op.errors, 401, 403, 422, 429];
          assert.ok(documented.includes(a.status), `${tool.name} answered ${a.status} ${a.detail}, not a status its operation documents`);
        } else {
          assert.ok(a.status >= 200 && a.status < 300, `${tool.name} succeeded with ${a.status}`);
        }
        answered.push(tool.name);
      }
      assert.equal(answered.length, snapshot.length);
    });

    it('answers server/discover without initialize: the revisions it serves, its capabilities and itself', async () => {
      const { session } = await servers[0]!.human('cyd');
      const found = await modernRaw(servers[0]!, session, 'server/discover', {});
      assert.equal(found.status, 200, JSON.stringify(found.body));
      const result = found.body.result;
      assert.deepEqual(result.supportedVersions, [MODERN]);
      assert.deepEqual(result.capabilities.tools, { listChanged: false });
      assert.ok(result.capabilities.resources, 'the resources capability is declared');
      // 2026-07-28 results name their server in `_meta`.
      assert.equal(result._meta['io.modelcontextprotocol/serverInfo'].name, 'atrium');
      assert.match(result.instructions, /untrusted content/);
      // Stateless: a tool call needs no handshake before it.
      const called = await modernRaw(servers[0]!, session, 'tools/call', { name: 'get_me', arguments: {} });
      assert.equal(called.status, 200);
      assert.equal(called.body.result.structuredContent.handle, 'cyd');
      // The same list as the 2025 revisions and the snapshot (the SDK's 2026-07-28 codec writes an output
      // schema's `required` before its `properties`; nothing else moves), within the same byte budget.
      const listed = await modernRaw(servers[0]!, session, 'tools/list', {});
      assert.deepEqual(listed.body.result.tools, snapshot);
      assert.equal(JSON.stringify(listed.body.result.tools).length, JSON.stringify(snapshot).length);
      assert.ok(listed.bytes <= TOOLS_LIST_BUDGET, `tools/list in ${MODERN} is ${listed.bytes} bytes, over the budget of ${TOOLS_LIST_BUDGET}`);
    });

    it('refuses a request whose Mcp-Method or Mcp-Name header disagrees with its body, or is missing', async () => {
      const { session } = await servers[0]!.human('dee');
      const before = await servers[0]!.request('GET', '/v0/spaces/plaza/events?since=0', { token: session });
      const post = { name: 'post_message', arguments: { slug: 'plaza', channel: 'general', body: 'through a mislabelled request' } };
      const cases: Array<[string, Record<string, unknown>, Record<string, string | undefined>]> = [
        ['tools/call', post, { 'mcp-method': 'tools/list' }],
        ['tools/call', post, { 'mcp-method': undefined }],
        ['tools/call', post, { 'mcp-name': 'get_me' }],
        ['tools/call', post, { 'mcp-name': undefined }],
        ['tools/call', post, { 'mcp-protocol-version': undefined }],
        ['tools/call', post, { 'mcp-protocol-version': '2025-11-25' }],
        ['resources/read', { uri: 'atrium://spaces/plaza/front-page' }, { 'mcp-name': 'atrium://spaces/other/front-page' }],
      ];
      for (const [method, params, headers] of cases) {
        const refused = await modernRaw(servers[0]!, session, method, params, headers);
        assert.equal(refused.status, 400, `${method} ${JSON.stringify(headers)}: ${JSON.stringify(refused.body)}`);
        assert.equal(refused.body.error.code, -32020, JSON.stringify(refused.body));
      }
      const after = await servers[0]!.request('GET', '/v0/spaces/plaza/events?since=0', { token: session });
      assert.equal(after.body.events.length, before.body.events.length, 'nothing was posted');
      // The same call, labelled right, goes through.
      const posted = await modernRaw(servers[0]!, session, 'tools/call', post);
      assert.equal(posted.status, 200);
      assert.equal(posted.body.result.isError, undefined, JSON.stringify(posted.body));
      // An initialize under the 2026-07-28 header is a contradiction too.
      const init = await fetch(`${servers[0]!.url}/v0/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
      assert.equal(init.status, 400);
      assert.equal(((await init.json()) as Json).error.code, -32020);
    });

    it('authenticates a 2026-07-28 request before reading it, and refuses a batch in it', async () => {
      const anonymous = await modernRaw(servers[0]!, 'sk_atrium_unknownunknownunknownunknownunknown00', 'server/discover', {});
      assert.equal(anonymous.status, 401);
      assert.deepEqual(Object.keys(anonymous.body), ['detail']);
      const { session } = await servers[0]!.human('eve');
      const res = await fetch(`${servers[0]!.url}/v0/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }]),
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as Json).error.code, -32600);
    });
  });
}
