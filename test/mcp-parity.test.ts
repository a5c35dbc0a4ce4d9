import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import AjvModule from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isUntrusted } from '../src/content/untrusted.js';
import { EVENT_PAYLOAD_FIELDS, EVENT_TYPES } from '../src/events/payloads.js';
import { outputSchema, TOOL_ERROR_SCHEMA, withoutToolError } from '../src/mcp/output-schema.js';
import { allOperations, sharedSchemas } from '../src/operations/index.js';
import type { AnyOperation } from '../src/operations/operation.js';
import { McpCaller } from './support/mcp.js';
import { seedAgent } from './support/seed.js';
import { startServer, type TestServer } from './support/server.js';

const Ajv = AjvModule.default;
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/**
 * The tools are generated from the operation declarations; this test keeps
 * them honest. Every operation has its tool unless it is one of the explicit
 * exclusions below; each tool's input schema is the REST request (path, query
 * and body fields) as the served OpenAPI contract states it; each output
 * schema is the contract's response schema reduced to its shape (see
 * reduceContract below, and docs/mcp.md#output-schemas) with the
 * untrusted-content envelope in place of member-written text. The whole tool
 * list is snapshotted in test/snapshots/mcp-tools.json so that any change to
 * what agents see shows up in review: run with ATRIUM_UPDATE_SNAPSHOTS=1 to
 * accept a change; and it must stay within a size budget.
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
  'list_webhook_signing_keys',
  'get_oauth_authorization_request',
  'approve_oauth_authorization_request',
  'deny_oauth_authorization_request',
  'list_oauth_grants',
  'revoke_oauth_grant',
  'get_operator_status',
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
  'search',
];

const SNAPSHOT = fileURLToPath(new URL('./snapshots/mcp-tools.json', import.meta.url));

/**
 * The most a `tools/list` answer may weigh, in bytes of the JSON Atrium
 * sends. Clients paste tool schemas into model prompts, so every kilobyte is
 * paid on every conversation. Raise it deliberately, in review, not to make a
 * change pass (docs/mcp.md#output-schemas has the numbers).
 */
const TOOLS_LIST_BUDGET = 246_000;

/** The keywords an output schema keeps from the contract's response schema: those that give the shape. */
const SHAPE_KEYWORDS = ['type', 'properties', 'patternProperties', 'required', 'items', 'prefixItems', 'enum', 'const', 'anyOf', 'allOf'];

/** The one definition an output schema may hold: the envelope, every part required, nullable parts as `anyOf`. */
const UNTRUSTED_DEFINITION = {
  type: 'object',
  required: ['untrusted'],
  properties: {
    untrusted: {
      type: 'object',
      required: ['text', 'provenance'],
      properties: {
        text: { type: 'string' },
        provenance: {
          type: 'object',
          required: ['space', 'author', 'record', 'field'],
          properties: {
            space: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            author: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            record: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
            field: { type: 'string' },
          },
        },
      },
    },
  },
};
const UNTRUSTED_REF = '#/$defs/untrusted';

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
    // `search` is the one tool the protocol names with a verb alone.
    for (const name of names.filter((n) => n !== 'search')) assert.match(name, /^[a-z]+(?:_[a-z]+)+$/, 'snake_case verb_noun');
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

  it("returns the REST response schema reduced to its shape, with member-written text in the envelope", () => {
    for (const tool of tools) {
      const op = declaration(tool.name);
      if (op.success.status === 204) {
        assert.equal(tool.outputSchema, undefined, `${tool.name} answers no content, so it has no outputSchema`);
        continue;
      }
      assert.ok(op.success.schema && tool.outputSchema, `${tool.name} has an outputSchema`);
      assert.equal(tool.outputSchema.type, 'object');
      assert.deepEqual(tool.outputSchema, outputSchema(op.success.schema, sharedSchemas), tool.name);
      const response = contract.paths[op.path]![op.method.toLowerCase()]!.responses[String(op.success.status)]!;
      const restSchema = resolveContract(contract, response.content!['application/json']!.schema);
      const { $defs, ...widened } = tool.outputSchema as Json;
      // The one other alternative is a tool error's `{code, detail}`.
      assert.deepEqual((widened.anyOf as Json[])[1], TOOL_ERROR_SCHEMA, `${tool.name}: admits a tool error`);
      const output = withoutToolError(widened);
      const refs = JSON.stringify(output).split(`"$ref":"${UNTRUSTED_REF}"`).length - 1;
      // The envelope definition is there exactly when something refers to it, and is the only addition to REST's schema.
      assert.deepEqual($defs, refs > 0 ? { untrusted: UNTRUSTED_DEFINITION } : undefined, `${tool.name}: $defs`);
      assert.deepEqual(unenvelope(output), reduceContract(restSchema), `${tool.name}: output schema drifted from REST`);
    }
  });

  it('gives the feed tools one event shape: every type, and exactly the member-written payload fields in the envelope', () => {
    // From the event declarations themselves rather than from the reduction: what a payload field name may hold.
    const payloadFields = new Map<string, { untrusted: boolean; plain: boolean }>();
    for (const fields of Object.values(EVENT_PAYLOAD_FIELDS)) {
      for (const [name, schema] of Object.entries(fields)) {
        const seen = payloadFields.get(name) ?? { untrusted: false, plain: false };
        if (isUntrusted(schema)) seen.untrusted = true;
        else seen.plain = true;
        payloadFields.set(name, seen);
      }
    }
    const envelopeOnly = [...payloadFields].filter(([, seen]) => seen.untrusted && !seen.plain).map(([name]) => name);
    const mixed = [...payloadFields].filter(([, seen]) => seen.untrusted && seen.plain).map(([name]) => name);
    assert.ok(envelopeOnly.includes('body') && mixed.includes('name'), 'a message body is always member-written; a name is, except a channel name');
    for (const name of ['list_event_page', 'list_host_event_page', 'list_inbox_events']) {
      const tool = tools.find((t) => t.name === name)!;
      const event = ((tool.outputSchema!.properties as Json).events as Json).items as Json;
      assert.equal(JSON.stringify(event).includes('oneOf'), false, `${name}: no union of variants`);
      const properties = event.properties as Json;
      assert.deepEqual(properties.type, { type: 'string', enum: [...EVENT_TYPES] }, `${name}: type names every event type`);
      const payload = properties.payload as Json;
      assert.deepEqual(Object.keys(payload).sort(), ['properties', 'type'], `${name}: an open payload, every field optional`);
      assert.deepEqual(Object.keys(payload.properties as Json).sort(), [...envelopeOnly, ...mixed].sort(), `${name}: the member-written payload fields`);
      for (const field of envelopeOnly) assert.deepEqual((payload.properties as Json)[field], { $ref: UNTRUSTED_REF }, `${name}: payload.${field}`);
      for (const field of mixed) {
        const forms = ((payload.properties as Json)[field] as { anyOf: Json[] }).anyOf;
        assert.equal(forms.filter((form) => form.$ref === UNTRUSTED_REF).length, 1, `${name}: payload.${field} may be the envelope`);
        assert.ok(forms.some((form) => !JSON.stringify(form).includes('$ref')), `${name}: payload.${field} may be plain where a type declares it so`);
      }
    }
  });

  it('weighs no more than the budget, as sent', async () => {
    const res = await fetch(`${server.url}/v0/mcp`, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-06-18',
        authorization: `Bearer ${caller.token}`,
        // The model reads the JSON, not its compressed form.
        'accept-encoding': 'identity',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 200);
    const body = Buffer.from(await res.arrayBuffer());
    assert.deepEqual((JSON.parse(body.toString('utf8')) as { result: { tools: Tool[] } }).result.tools, tools, 'the raw answer is the list the client read');
    assert.ok(body.length <= TOOLS_LIST_BUDGET, `tools/list is ${body.length} bytes, over the budget of ${TOOLS_LIST_BUDGET}`);
  });

  it('uses no `type` arrays, and no $ref but the local envelope definition', () => {
    const visit = (node: unknown, where: string, inside: string | undefined = undefined): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}[${i}]`));
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        // Under `properties` every key is a field name, not a keyword.
        if (inside !== 'properties') {
          if (key === 'type') assert.equal(typeof value, 'string', `${where}: type ${JSON.stringify(value)}`);
          if (key === '$ref') assert.equal(value, UNTRUSTED_REF, `${where}: $ref`);
        }
        visit(value, `${where}.${key}`, inside === 'properties' ? undefined : key);
      }
    };
    for (const tool of tools) {
      visit(tool.inputSchema, `${tool.name}.inputSchema`);
      assert.equal(JSON.stringify(tool.inputSchema).includes('"$ref"'), false, `${tool.name}: an input schema is self-contained`);
      if (tool.outputSchema) visit(tool.outputSchema, `${tool.name}.outputSchema`);
    }
  });

  it('has schemas every JSON Schema client can compile: 2020-12, and draft-07 as the MCP SDK client does', () => {
    for (const ajv of [new Ajv2020({ strict: false, logger: false }), new Ajv({ strict: false, validateSchema: false, logger: false })]) {
      addFormats(ajv);
      for (const tool of tools) {
        assert.doesNotThrow(() => ajv.compile(tool.inputSchema), `${tool.name} inputSchema`);
        if (tool.outputSchema) assert.doesNotThrow(() => ajv.compile(tool.outputSchema!), `${tool.name} outputSchema`);
      }
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
      assert.equal(a.openWorldHint, op.openWorld === true, tool.name);
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
    // A conditional read's `If-None-Match` is HTTP caching, which a tool call has no use for.
    if (op.conditional && p.in === 'header' && p.name === 'if-none-match') continue;
    // Nor has it headers to carry an `Idempotency-Key` (docs/idempotency.md).
    if (op.idempotencyKey && p.in === 'header' && p.name === 'idempotency-key') continue;
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

/** Each envelope reference replaced by the member-written string it stands for, as the contract tags it. */
function unenvelope(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(unenvelope);
  if (typeof node !== 'object' || node === null) return node;
  if ((node as Json).$ref === UNTRUSTED_REF) return { type: 'string', 'x-atrium-untrusted': true };
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, unenvelope(v)]));
}

/**
 * The contract's response schema as a tool's output schema states it
 * (docs/mcp.md#output-schemas), before the envelope:
 * - only SHAPE_KEYWORDS stay, with the `x-atrium-untrusted` tag, and
 *   `additionalProperties` when it is a schema; so no description, title,
 *   default, example, pattern, format, length, bound, item count, closed
 *   object (`additionalProperties: false`) or OpenAPI discriminator;
 * - a `oneOf` with a discriminator over object branches (the event union) is
 *   one object: the discriminator is a string enum of the branches' values in
 *   order; a property whose schema is the same in every branch is that schema;
 *   any other property, when an object in every branch, is an open object
 *   with only the fields that carry member-written text in some branch, each
 *   optional and `anyOf` its distinct branch forms (one form: itself); required
 *   are the properties every branch requires;
 * - any other `oneOf` is an `anyOf`.
 */
function reduceContract(node: unknown): Json {
  if (typeof node !== 'object' || node === null) return {};
  const n = node as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(n)) {
    if (key === 'x-atrium-untrusted') out[key] = value;
    else if (key === 'additionalProperties' && typeof value === 'object') out[key] = reduceContract(value);
    else if (!SHAPE_KEYWORDS.includes(key)) continue;
    else if (key === 'properties' || key === 'patternProperties') out[key] = Object.fromEntries(Object.entries(value as Json).map(([name, s]) => [name, reduceContract(s)]));
    else if (key === 'anyOf' || key === 'allOf' || key === 'prefixItems' || (key === 'items' && Array.isArray(value))) out[key] = (value as unknown[]).map(reduceContract);
    else if (key === 'items') out[key] = reduceContract(value);
    else out[key] = value;
  }
  if (!Array.isArray(n.oneOf)) return out;
  const branches = n.oneOf.map(reduceContract);
  const discriminator = (n.discriminator as { propertyName?: string } | undefined)?.propertyName;
  if (discriminator === undefined || !branches.every((b) => b.type === 'object')) return { ...out, anyOf: branches };
  assert.deepEqual(out, {}, 'a discriminated union carries nothing but its branches');
  const props = (b: Json) => (b.properties ?? {}) as Record<string, Json>;
  const names = [...new Set(branches.flatMap((b) => Object.keys(props(b))))];
  const distinctForms = (forms: Json[]) => [...new Map(forms.map((f) => [JSON.stringify(f), f])).values()];
  const either = (forms: Json[]) => {
    const d = distinctForms(forms);
    return d.length === 1 ? d[0]! : { anyOf: d };
  };
  const properties: Json = {};
  for (const name of names) {
    const forms = branches.filter((b) => name in props(b)).map((b) => props(b)[name]!);
    if (name === discriminator) properties[name] = { type: 'string', enum: forms.flatMap((f) => f.enum as string[]) };
    else if (forms.length === branches.length && distinctForms(forms).length === 1) properties[name] = forms[0];
    else {
      assert.ok(forms.every((f) => f.type === 'object'), `${name} differs between branches and is not an object in each`);
      const fields: Json = {};
      for (const field of new Set(forms.flatMap((f) => Object.keys(props(f))))) {
        const fieldForms = forms.filter((f) => field in props(f)).map((f) => props(f)[field]!);
        if (JSON.stringify(fieldForms).includes('"x-atrium-untrusted":true')) fields[field] = either(fieldForms);
      }
      properties[name] = { type: 'object', properties: fields };
    }
  }
  const required = names.filter((name) => branches.every((b) => ((b.required ?? []) as string[]).includes(name)));
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
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
