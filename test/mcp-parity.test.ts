import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { envelopeSchema } from '../src/mcp/envelope.js';
import { allOperations, sharedSchemas } from '../src/operations/index.js';
import type { AnyOperation } from '../src/operations/operation.js';
import { McpCaller } from './support/mcp.js';
import { seedAgent } from './support/seed.js';
import { startServer, type TestServer } from './support/server.js';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/**
 * The tools are generated from the operation declarations; this test keeps
 * them honest. Every operation has its tool unless it is one of the explicit
 * exclusions below; each tool's input schema is the REST request (path, query
 * and body fields) as the served OpenAPI contract states it; each output
 * schema is the REST response schema with the untrusted-content envelope in
 * place of member-written text. The whole tool list is snapshotted in
 * test/snapshots/mcp-tools.json so that any change to what agents see shows
 * up in review: run with ATRIUM_UPDATE_SNAPSHOTS=1 to accept a change.
 */

/** Operations with no tool (docs/mcp.md gives the reasons; so do their declarations). */
const EXCLUDED = [
  'get_discovery',
  'get_openapi_contract',
  'sign_up',
  'request_sign_in_code',
  'verify_sign_in',
  'sign_out',
  'create_client_activation',
  'get_client_activation',
  'approve_client_activation',
  'poll_client_activation',
];

/** The tool names docs/protocol.md lists (the credential gateway will add more). */
const PROTOCOL_TOOLS = [
  'get_space',
  'list_resources',
  'get_resource',
  'create_resource',
  'update_resource',
  'set_space_pins',
  'pin_resource',
  'propose_pin',
  'list_pin_proposals',
  'get_repository_file',
  'list_event_page',
  'list_inbox_events',
  'post_message',
  'list_channels',
];

const SNAPSHOT = fileURLToPath(new URL('./snapshots/mcp-tools.json', import.meta.url));

type Json = Record<string, unknown>;

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Json;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: OpenApiParameter[]; requestBody?: { content: Record<string, { schema: Json }> }; responses: Record<string, { content?: Record<string, { schema: Json }> }> }>>;
  components: { schemas: Record<string, Json> };
}

const operations = allOperations(() => ({}));

describe('MCP tools mirror the operation declarations', () => {
  let server: TestServer;
  let caller: McpCaller;
  let tools: Tool[];
  let contract: OpenApiDocument;

  before(async () => {
    // The tool list does not depend on the database; one backend is enough here.
    server = await startServer('sqlite');
    await server.human('ada');
    const agent = await seedAgent(server, 'reader', 'ada', 'active');
    caller = await McpCaller.connect(server, agent.key);
    tools = (await caller.client.listTools()).tools;
    contract = (await (await fetch(`${server.url}/v0/openapi.json`)).json()) as OpenApiDocument;
  });

  after(async () => {
    await caller?.close();
    await server?.stop();
  });

  it('has one tool per operation, named after it, except the listed exclusions', () => {
    const names = tools.map((t) => t.name);
    assert.deepEqual(names, [...new Set(names)], 'tool names are unique');
    const expected = operations.map((op) => op.name).filter((name) => !EXCLUDED.includes(name));
    assert.deepEqual(names, expected, 'tools, in contract order, are the operations minus the exclusions');
    assert.deepEqual(
      operations.filter((op) => op.notAnMcpTool !== undefined).map((op) => op.name),
      EXCLUDED,
      'the declarations that opt out are exactly the listed exclusions',
    );
    for (const op of operations) {
      if (op.notAnMcpTool !== undefined) assert.ok(op.notAnMcpTool.length > 10, `${op.name} says why it has no tool`);
    }
    for (const name of PROTOCOL_TOOLS) assert.ok(names.includes(name), `the protocol names tool ${name}`);
    for (const name of names) assert.match(name, /^[a-z]+(?:_[a-z]+)+$/, 'snake_case verb_noun');
  });

  it("takes as arguments exactly the REST request's path, query and body fields", () => {
    for (const tool of tools) {
      const op = declaration(tool.name);
      const rest = restInput(contract, op);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name}: unknown arguments are refused, as REST refuses unknown fields`);
      assert.deepEqual(normalise(tool.inputSchema.properties ?? {}), normalise(rest.properties), `${tool.name}: input schema drifted from REST`);
      assert.deepEqual([...(tool.inputSchema.required ?? [])].sort(), [...rest.required].sort(), `${tool.name}: required arguments`);
    }
  });

  it("returns the REST response schema, with member-written text in the envelope", () => {
    for (const tool of tools) {
      const op = declaration(tool.name);
      assert.ok(op.success.schema && tool.outputSchema, `${tool.name} has an outputSchema`);
      assert.equal(tool.outputSchema.type, 'object');
      assert.deepEqual(tool.outputSchema, JSON.parse(JSON.stringify(envelopeSchema(op.success.schema, sharedSchemas))), tool.name);
      const response = contract.paths[op.path]![op.method.toLowerCase()]!.responses[String(op.success.status)]!;
      const restSchema = resolveContract(contract, response.content!['application/json']!.schema);
      // The envelope's one shared provenance definition is the only addition to REST's schema.
      const { $defs: _defs, ...outputWithoutDefs } = tool.outputSchema as Json;
      assert.deepEqual(normalise(unenvelope(outputWithoutDefs)), normalise(restSchema), `${tool.name}: output schema drifted from REST`);
    }
  });

  it('has schemas every JSON Schema 2020-12 client can compile', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    for (const tool of tools) {
      assert.doesNotThrow(() => ajv.compile(tool.inputSchema), `${tool.name} inputSchema`);
      assert.doesNotThrow(() => ajv.compile(tool.outputSchema!), `${tool.name} outputSchema`);
    }
  });

  it('annotates reads, destructive and idempotent tools from the declarations', () => {
    for (const tool of tools) {
      const op = declaration(tool.name);
      const a = tool.annotations!;
      assert.equal(a.readOnlyHint, op.method === 'GET', `${tool.name}: read-only exactly when REST uses GET`);
      assert.equal(a.readOnlyHint, op.readOnly === true);
      assert.equal(a.destructiveHint, op.destructive === true, tool.name);
      assert.equal(a.idempotentHint, op.readOnly === true || op.idempotent === true, tool.name);
      assert.equal(a.openWorldHint, false);
      if (a.readOnlyHint) assert.equal(a.destructiveHint, false, `${tool.name}: a read destroys nothing`);
      assert.equal(tool.title, op.summary);
      assert.ok(tool.description!.startsWith(op.summary), `${tool.name}: the description starts with the summary`);
      assert.match(tool.description!, /Over MCP: /, `${tool.name}: the description says who may call it`);
    }
  });

  it('matches the reviewed snapshot (ATRIUM_UPDATE_SNAPSHOTS=1 rewrites it)', () => {
    const current = `${JSON.stringify({ tools }, null, 2)}\n`;
    if (process.env.ATRIUM_UPDATE_SNAPSHOTS === '1') {
      mkdirSync(dirname(SNAPSHOT), { recursive: true });
      writeFileSync(SNAPSHOT, current);
      return;
    }
    let stored: { tools: Tool[] };
    try {
      stored = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as { tools: Tool[] };
    } catch (err) {
      assert.fail(`cannot read ${SNAPSHOT} (${(err as Error).message}): run the tests with ATRIUM_UPDATE_SNAPSHOTS=1 to write it`);
    }
    const byName = new Map(stored.tools.map((t) => [t.name, t]));
    const changed = tools.filter((t) => JSON.stringify(t) !== JSON.stringify(byName.get(t.name))).map((t) => t.name);
    const removed = stored.tools.map((t) => t.name).filter((name) => !tools.some((t) => t.name === name));
    assert.ok(
      changed.length === 0 && removed.length === 0,
      `the MCP tools differ from test/snapshots/mcp-tools.json (changed or new: ${changed.join(', ') || 'none'}; removed: ${removed.join(', ') || 'none'}). ` +
        'Review the change, then run with ATRIUM_UPDATE_SNAPSHOTS=1 to accept it.',
    );
    assert.equal(current, readFileSync(SNAPSHOT, 'utf8'), 'the snapshot is byte-for-byte what the server lists');
  });
});

function declaration(name: string): AnyOperation {
  const op = operations.find((o) => o.name === name);
  assert.ok(op, `tool ${name} has no operation`);
  return op;
}

/**
 * The REST request as the served contract states it: path and query
 * parameters (with the description the contract lifts out of each schema)
 * and the JSON body's properties. A name in two places could not be one
 * argument, so it fails here.
 */
function restInput(contract: OpenApiDocument, op: AnyOperation): { properties: Json; required: string[] } {
  const entry = contract.paths[op.path]![op.method.toLowerCase()]!;
  const properties: Json = {};
  const required: string[] = [];
  const add = (name: string, schema: Json, isRequired: boolean) => {
    assert.ok(!(name in properties), `${op.name}: "${name}" is both a parameter and a body field`);
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  for (const p of entry.parameters ?? []) {
    assert.ok(p.in === 'path' || p.in === 'query', `${op.name}: only path and query parameters map to arguments (${p.in} ${p.name})`);
    add(p.name, p.description === undefined ? p.schema : { ...p.schema, description: p.description }, p.required === true);
  }
  const body = entry.requestBody?.content['application/json']?.schema;
  if (body) {
    const resolved = resolveContract(contract, body) as { properties?: Json; required?: string[] };
    // An optional body is read as `{}`: it must not declare fields that `{}` lacks.
    if (!op.bodyRequired) assert.deepEqual(resolved.required ?? [], [], `${op.name}: an optional body with required fields`);
    for (const [name, schema] of Object.entries(resolved.properties ?? {})) add(name, schema as Json, (resolved.required ?? []).includes(name));
  }
  return { properties, required };
}

/** The contract's `#/components/schemas/…` references inlined. */
function resolveContract(contract: OpenApiDocument, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => resolveContract(contract, n));
  if (typeof node !== 'object' || node === null) return node;
  const ref = (node as Json).$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    const target = contract.components.schemas[name];
    assert.ok(target, `no component ${name}`);
    const { $ref: _ref, ...siblings } = node as Json;
    return resolveContract(contract, { ...target, ...siblings });
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveContract(contract, v)]));
}

/** Each envelope replaced by the member-written string schema it wraps. */
function unenvelope(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(unenvelope);
  if (typeof node !== 'object' || node === null) return node;
  const n = node as Json;
  const untrusted = (n.properties as Json | undefined)?.untrusted as Json | undefined;
  const text = (untrusted?.properties as Json | undefined)?.text;
  if (n.type === 'object' && Array.isArray(n.required) && n.required.length === 1 && n.required[0] === 'untrusted' && text) return text;
  return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, unenvelope(v)]));
}

/**
 * Leaves out what only labels a schema: titles a resolver adds for named
 * schemas, `$id`s, and the description of the whole response (OpenAPI keeps
 * it on the response object).
 */
function normalise(node: unknown, root = true): unknown {
  if (Array.isArray(node)) return node.map((n) => normalise(n, false));
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$id' || (k === 'title' && typeof v === 'string') || (root && k === 'description' && typeof v === 'string')) continue;
    // Under `properties` every key is a field name, not a keyword.
    out[k] = k === 'properties' && typeof v === 'object' && v !== null
      ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, normalise(s, false)]))
      : normalise(v, false);
  }
  return out;
}
