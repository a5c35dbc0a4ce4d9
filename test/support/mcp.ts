import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { allOperations } from '../../src/operations/index.js';
import type { AnyOperation } from '../../src/operations/operation.js';
import { errorStatus, isErrorCode } from '../../src/shared/error-catalogue.js';
import type { TestResponse, TestServer } from './server.js';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export const operationsByName: Map<string, AnyOperation> = new Map(allOperations(() => ({})).map((op) => [op.name, op]));

export function operation(name: string): AnyOperation {
  const op = operationsByName.get(name);
  assert.ok(op, `no operation ${name}`);
  return op;
}

/** An MCP client over real HTTP, speaking as one credential, with the tools it listed. */
export class McpCaller {
  readonly tools = new Map<string, Tool>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ReturnType<InstanceType<typeof Ajv2020>['compile']>>();

  private constructor(
    readonly client: Client,
    readonly token: string,
  ) {
    addFormats(this.ajv);
  }

  static async connect(server: TestServer, token: string): Promise<McpCaller> {
    const client = new Client({ name: 'atrium-tests', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/v0/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    const caller = new McpCaller(client, token);
    // listTools also lets the SDK client check every structuredContent against the tool's outputSchema.
    for (const tool of (await client.listTools()).tools) caller.tools.set(tool.name, tool);
    return caller;
  }

  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await this.client.callTool({ name, arguments: args })) as CallToolResult;
  }

  /**
   * A call that must succeed: its structuredContent validates against the
   * tool's outputSchema (JSON Schema 2020-12) and its text carries the same
   * JSON. Returns the structured content with every envelope unwrapped, i.e.
   * the JSON REST would answer.
   */
  async ok(name: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; json: unknown }> {
    const result = await this.call(name, args);
    assert.ok(!result.isError, `${name} ${JSON.stringify(args)} failed: ${textOf(result)}`);
    const tool = this.tools.get(name);
    // An operation that answers 204 has no result: its tool has no outputSchema and says it is done.
    if (operation(name).success.status === 204) {
      assert.equal(tool?.outputSchema, undefined, `${name} answers no content, so it has no outputSchema`);
      assert.equal(result.structuredContent, undefined);
      assert.equal(textOf(result), 'Done (204).');
      return { result, json: {} };
    }
    assert.ok(tool?.outputSchema, `${name} has no outputSchema`);
    let validate = this.validators.get(name);
    if (!validate) {
      validate = this.ajv.compile(tool.outputSchema);
      this.validators.set(name, validate);
    }
    assert.ok(validate(result.structuredContent), `${name}: structuredContent does not match outputSchema: ${this.ajv.errorsText(validate.errors)}`);
    return { result, json: unwrapUntrusted(result.structuredContent) };
  }

  /** A call that must be refused; returns the code, status and detail it carried. */
  async refused(name: string, args: Record<string, unknown>): Promise<{ code: string; status: number; detail: string }> {
    const result = await this.call(name, args);
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} was expected to fail but answered ${textOf(result).slice(0, 300)}`);
    const { code, detail: structuredDetail } = result.structuredContent as { code: string; detail: string };
    assert.ok(isErrorCode(code), `${name}: ${code} is in the error catalogue`);
    const meta = result._meta as { 'atrium/status'?: number; 'atrium/detail'?: string } | undefined;
    const status = meta?.['atrium/status'];
    const detail = meta?.['atrium/detail'];
    assert.equal(typeof status, 'number');
    assert.equal(typeof detail, 'string');
    assert.equal(textOf(result), `${status} ${detail}`);
    assert.equal(structuredDetail, detail);
    assert.equal(status, errorStatus(code), `${name}: ${code} has its catalogue status`);
    return { code, status: status!, detail: detail! };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/** The envelope taken off: `{untrusted: {text, provenance}}` becomes `text` again. */
export function unwrapUntrusted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrapUntrusted);
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0]![0] === 'untrusted') {
      const inner = entries[0]![1] as { text?: unknown; provenance?: unknown };
      if (typeof inner === 'object' && inner !== null && typeof inner.text === 'string' && 'provenance' in inner) return inner.text;
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, unwrapUntrusted(v)]));
  }
  return value;
}

/** The REST request a tool call stands for: its arguments split into path, query and body. */
export function restRequestFor(op: AnyOperation, args: Record<string, unknown>): { method: string; path: string; body?: unknown } {
  const params = new Set(Object.keys((op.params as { properties?: object } | undefined)?.properties ?? {}));
  const query = new Set(Object.keys((op.query as { properties?: object } | undefined)?.properties ?? {}));
  const search = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (params.has(key)) continue;
    // An undeclared name goes to the body, or to the query string when there is no body.
    if (query.has(key) || (!op.body && !params.has(key))) search.append(key, String(value));
    else body[key] = value;
  }
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(args[name] ?? '')));
  const qs = search.toString();
  return { method: op.method, path: qs ? `${path}?${qs}` : path, ...(op.body ? { body } : {}) };
}

/** The same call over REST, with the same credential. */
export function restCall(server: TestServer, token: string | undefined, name: string, args: Record<string, unknown>): Promise<TestResponse> {
  const req = restRequestFor(operation(name), args);
  return server.request(req.method, req.path, { ...(token ? { token } : {}), ...(req.body !== undefined ? { body: req.body } : {}) });
}
