import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import type { ChecksOwnTextConfig, WaitAllowances } from '../http/server.js';
import { presentedCredential } from '../http/authenticate.js';
import type { MemberActor } from '../identity/actor.js';
import { resolveCredential } from '../identity/credentials.js';
import type { AnyOperation } from '../operations/operation.js';
import { AtriumError, forbidden } from '../shared/errors.js';
import { ERROR_CODE_HEADER } from '../shared/error-catalogue.js';
import { bearerChallenge, resourceUrl } from '../oauth/challenge.js';
import { refuseWriteToReadGrant } from '../oauth/narrowing.js';
import type { ToolCaller } from './call.js';
import { createMcpServer } from './server.js';
import { buildToolset, type Toolset } from './tools.js';

export const MCP_PATH = '/v0/mcp';

/**
 * `/v0/mcp`: remote MCP over Streamable HTTP (protocol: MCP; docs/mcp.md),
 * stateless, in MCP 2026-07-28 and the 2025 revisions. Every POST
 * authenticates its bearer credential, then gets a fresh MCP server of its
 * own, so nothing one caller did can reach another's answers. Bodies go
 * through Atrium's JSON parser and body limit like every other request.
 */
export function registerMcpEndpoint(
  app: FastifyInstance,
  ctx: AppContext,
  opts: { operations: AnyOperation[]; sharedSchemas: TSchema[]; waits: WaitAllowances },
): void {
  const toolset = buildToolset(opts.operations, opts.sharedSchemas);
  const callers = new WeakMap<FastifyRequest, MemberActor>();
  const factory = (caller: ToolCaller) => createMcpServer(toolset, caller, ctx);
  const requestCallers = new WeakMap<Request, ToolCaller>();
  const mcp: McpServing = {
    url: new URL(MCP_PATH, ctx.config.baseUrl).href,
    callers: requestCallers,
    factory,
    modern: createMcpHandler(
      ({ requestInfo }) => {
        const caller = requestInfo && requestCallers.get(requestInfo);
        if (!caller) throw new Error('an MCP request reached the server factory without its authenticated caller');
        return factory(caller);
      },
      // 2025-era requests never reach this handler (serve() routes them), so it serves 2026-07-28 only.
      { legacy: 'reject', onerror: (err) => ctx.log.warn({ err }, 'MCP request refused or failed in the SDK') },
    ),
  };
  const config: ChecksOwnTextConfig & { operation: string } = { checksOwnText: true, operation: 'mcp' };
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    // An MCP endpoint, not a REST operation: it is not part of the OpenAPI contract.
    schema: { hide: true },
    config,
    // Answers are JSON-RPC bodies a client reads whole; as before, they are sent as they are.
    compress: false,
    // A foreign page is refused before anything else; then, as on REST, who is
    // calling is settled before the body is read.
    onRequest: async (request) => {
      checkOrigin(request, ctx.config.baseUrl);
      callers.set(request, await authenticateMcp(request, ctx));
    },
    // A body that is not JSON is a JSON-RPC parse error here, not REST's 422.
    errorHandler: (error, request, reply) => {
      if (error instanceof AtriumError && error.status === 422) {
        return reply.code(400).send(jsonRpcError(-32700, `Parse error: ${error.detail}`));
      }
      throw error;
    },
    handler: async (request, reply) => {
      if (request.method !== 'POST') {
        // Stateless: there is no server-to-client stream to open (GET) and no session to end (DELETE).
        return reply.code(405).header('allow', 'POST').header(ERROR_CODE_HEADER, 'method_not_allowed').send({ detail: `${MCP_PATH} takes MCP messages by POST only (stateless Streamable HTTP)` });
      }
      if (request.body === undefined) return reply.code(400).send(jsonRpcError(-32700, 'Parse error: the request body must be a JSON-RPC message'));
      const batchRefusal = refuseBatch(request, ctx.config.mcpMaxBatch);
      if (batchRefusal) return reply.code(400).send(jsonRpcError(-32600, batchRefusal));
      const member = callers.get(request)!;
      refuseToolBeyondScope(request.body, member, toolset, ctx);
      const caller: ToolCaller = {
        member,
        clientAddress: request.ip,
        waits: opts.waits(request, reply, member),
        log: request.log,
        // Fastify's own serializer for the schema, with the shared schemas: the same JSON the REST route sends.
        serialize: (schema, value) => JSON.parse(reply.compileSerializationSchema(schema)(value as Record<string, unknown>)) as unknown,
      };
      return reply.send(await serve(request, reply, caller, mcp));
    },
  });
}

/**
 * A `read` grant calling a tool that is not read-only is refused at the HTTP
 * level (403 with `insufficient_scope`), as the MCP authorization rules ask,
 * so that a client can ask its person for more; the tool call itself would be
 * refused the same way (src/http/authenticate.ts, actorFor).
 */
function refuseToolBeyondScope(body: unknown, member: MemberActor, toolset: Toolset, ctx: AppContext): void {
  if (member.credential.grant?.scope !== 'read' || typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const message = body as { method?: unknown; params?: { name?: unknown } };
  if (message.method !== 'tools/call' || typeof message.params?.name !== 'string') return;
  const bound = toolset.byName.get(message.params.name);
  // A tool no OAuth token may call is refused as a tool error (session_required), as REST refuses it: more scope would not help.
  if (!bound || bound.op.createsCredential || !bound.op.auth.schemes.includes('member_key')) return;
  refuseWriteToReadGrant(bound.op, member.credential.grant, resourceUrl(ctx.config.baseUrl, 'mcp'));
}

function jsonRpcError(code: number, message: string): { jsonrpc: '2.0'; id: null; error: { code: number; message: string } } {
  return { jsonrpc: '2.0', id: null, error: { code, message } };
}

/**
 * MCP Streamable HTTP: a server must validate `Origin` to stop DNS rebinding,
 * where a page on another site reaches a local or intranet server through a
 * name it controls. Browsers always send `Origin` on a cross-origin POST, so a
 * request whose `Origin` is not Atrium's own, or whose `Host` is not the host
 * of ATRIUM_BASE_URL, is refused before the credential is looked at. Programs
 * that send no `Origin` (CLIs, agent harnesses) are unaffected. A loopback base
 * URL accepts every loopback name on its port: `localhost` and `127.0.0.1` are
 * the same server, and no outside name can be among them.
 */
function checkOrigin(request: FastifyRequest, baseUrl: string): void {
  const own = new URL(baseUrl);
  const hosts = sameHostNames(own);
  const origin = request.headers.origin;
  const fromHost = origin === undefined ? undefined : originHost(origin, own.protocol);
  if (origin !== undefined && (fromHost === undefined || !hosts.has(fromHost))) {
    throw forbidden('origin_refused', `requests from origin ${JSON.stringify(origin)} are refused: ${MCP_PATH} serves only its own origin ${own.origin}`);
  }
  const host = request.headers.host;
  if (host !== undefined && !hosts.has(host.toLowerCase())) {
    throw forbidden('host_refused', `requests for host ${JSON.stringify(host)} are refused: ${MCP_PATH} answers only for ${own.host} (ATRIUM_BASE_URL)`);
  }
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The base URL's host; when that is a loopback name, every loopback name on the same port means the same server. */
function sameHostNames(own: URL): Set<string> {
  if (!LOOPBACK_NAMES.includes(own.hostname)) return new Set([own.host]);
  return new Set(LOOPBACK_NAMES.map((name) => (own.port ? `${name}:${own.port}` : name)));
}

/** An Origin's host, when its scheme is the base URL's; otherwise nothing matches. */
function originHost(origin: string, protocol: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === protocol ? url.host : undefined;
  } catch {
    return undefined;
  }
}

/**
 * JSON-RPC batches were part of MCP 2025-03-26 and were removed in 2025-06-18
 * (2026-07-28 has none either). The version travels in `MCP-Protocol-Version`
 * (absent means 2025-03-26, as the transport rules say); 2025-03-26 may batch,
 * up to ATRIUM_MCP_MAX_BATCH messages, so one request cannot carry unbounded
 * work. This runs before the SDK sees the body.
 */
function refuseBatch(request: FastifyRequest, maxBatch: number): string | undefined {
  if (!Array.isArray(request.body)) return undefined;
  const header = request.headers['mcp-protocol-version'];
  const version = (Array.isArray(header) ? header[0] : header) ?? BATCHING_VERSION;
  if (version > BATCHING_VERSION) return `Invalid Request: MCP ${version} has no JSON-RPC batches; send one message per request`;
  if (request.body.length > maxBatch) return `Invalid Request: a batch may hold at most ${maxBatch} messages`;
  return undefined;
}

const BATCHING_VERSION = '2025-03-26';

/**
 * Hands one authenticated message to the MCP SDK. MCP 2026-07-28 requests
 * (those carrying the per-request `_meta` envelope) go to the SDK's
 * per-request handler, which checks the `Mcp-Method`/`Mcp-Name` headers
 * against the body and answers `server/discover`; 2025-era requests go to a
 * stateless Streamable HTTP transport that answers with one JSON body, as
 * this endpoint always has. Both get a fresh server from the same factory.
 */
async function serve(request: FastifyRequest, reply: FastifyReply, caller: ToolCaller, mcp: McpServing): Promise<Response> {
  const aborted = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) aborted.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const webRequest = new Request(mcp.url, { method: 'POST', headers, signal: aborted.signal });
  mcp.callers.set(webRequest, caller);
  if (await isLegacyRequest(webRequest, request.body)) {
    const server = mcp.factory(caller);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(webRequest, { parsedBody: request.body });
    } finally {
      void transport.close();
      void server.close();
    }
  }
  return mcp.modern.fetch(webRequest, { parsedBody: request.body });
}

interface McpServing {
  url: string;
  /** The caller of each request handed to the SDK, for the server factory. */
  callers: WeakMap<Request, ToolCaller>;
  factory(caller: ToolCaller): Server;
  modern: McpHttpHandler;
}

/**
 * The connection's credential: a bearer member key, session token or OAuth
 * access token issued for this endpoint, resolved
 * by Atrium's own rules (unknown 401, suspended 403). A cookie is no
 * credential here (nothing for a cross-site request to ride on), and the
 * steward key is refused, so no tool can ever exercise steward powers.
 */
async function authenticateMcp(request: FastifyRequest, ctx: AppContext): Promise<MemberActor> {
  try {
    if (request.headers.authorization === undefined) {
      throw new AtriumError('credential_required', 'a credential is required: send "Authorization: Bearer <member key, sign-in session token or OAuth access token>" (cookies are not accepted here)');
    }
    const presented = presentedCredential(request);
    const resolved = await resolveCredential(ctx.db.kysely, presented, {
      stewardKey: ctx.config.stewardKey,
      now: ctx.clock.now(),
      keys: ctx.memberKeys,
      resource: resourceUrl(ctx.config.baseUrl, 'mcp'),
    });
    if (resolved.kind === 'steward_attempt') {
      if (resolved.matches) throw forbidden('steward_key_refused', 'the steward key is not accepted over MCP: use a member key or a sign-in session token');
      throw new AtriumError('key_invalid', 'unknown or malformed key');
    }
    if (resolved.kind !== 'member') throw new AtriumError('member_required', 'a member key or sign-in session token is required');
    return resolved;
  } catch (err) {
    if (err instanceof AtriumError && err.status === 401) {
      // Where an OAuth client discovers how to authorize (docs/oauth.md, "Discovery").
      const resource = resourceUrl(ctx.config.baseUrl, 'mcp');
      const challenge = request.headers.authorization === undefined ? bearerChallenge(resource) : bearerChallenge(resource, 'invalid_token');
      throw new AtriumError(err.code, err.detail, { ...err.headers, 'www-authenticate': challenge });
    }
    throw err;
  }
}
