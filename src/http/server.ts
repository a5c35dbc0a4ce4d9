import type { Server } from 'node:http';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TSchema } from '@sinclair/typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteGenericInterface } from 'fastify';
import secureJsonParse from 'secure-json-parse';
import type { Logger } from 'pino';
import type { AppContext } from '../app-context.js';
import { requestLogger } from '../logger.js';
import { databaseBusy, isDatabaseBusy } from '../storage/busy.js';
import type { Actor } from '../identity/actor.js';
import type { AnyOperation, ResponseControl } from '../operations/operation.js';
import { NO_WAITING, type WaitAllowance } from '../operations/waits.js';
import { SESSION_COOKIE } from '../identity/tokens.js';
import { findUnstorableText } from '../content/text.js';
import { AtriumError, invalid } from '../shared/errors.js';
import { CODE_BY_STATUS, ERROR_CODE_HEADER, type ErrorCode } from '../shared/error-catalogue.js';
import { authenticate } from './authenticate.js';
import { connectionOptions } from './connections.js';
import { shareConnections, type ConnectionShare } from './connection-share.js';
import { LongPollBudget, waitAllowance } from './long-polls.js';
import { trackAllowedMethods } from './methods.js';
import { decimalIntegerCheck } from './url-integers.js';
import { passThrough, sendTagged } from './conditional.js';
import { declaredCharset, MAX_JSON_DEPTH, nestsDeeperThan } from './json-limits.js';
import { openApiDocumentation, routeSchema, toFastifyPath } from './openapi.js';
import { createSerializerCompiler } from './serializers.js';
import { createValidatorCompiler, describeValidationError } from './validation.js';
import { withIdempotencyKey, type KeptAnswer } from './idempotency.js';
import { IdempotencyKeys } from '../shared/idempotency-keys.js';

/** Methods that change nothing: a node that refuses writes still answers them. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
import { bearerChallenge, resourceUrl } from '../oauth/challenge.js';
import { narrowToGrantSpaces, withinGrant } from '../oauth/narrowing.js';

export interface HttpServerOptions {
  operations: AnyOperation[];
  sharedSchemas: TSchema[];
  /** Extra routes outside the API contract (the web app, /healthz, MCP); `waits` is what a request there may hold while it waits. */
  extraRoutes?: (app: FastifyInstance, waits: WaitAllowances) => void | Promise<void>;
}

/**
 * The thin HTTP edge: every API route is generated from an operation
 * declaration. Parsing, authentication and error shaping happen here once;
 * handlers receive typed input and an Actor and return the response body.
 */
export async function buildHttpServer(ctx: AppContext, opts: HttpServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    childLoggerFactory: (logger, bindings, options) => requestLogger(logger as Logger, bindings, options) as FastifyBaseLogger,
    // Fastify logs two lines per request at info; ours is one, at a level by its outcome (below).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: requestBodyLimit(ctx.config.resourceMaxBytes),
    trustProxy: ctx.config.trustProxy,
    // Fastify's default (100) answers longer path values with an undocumented
    // 414; schemas bound every path value, so let them answer instead.
    routerOptions: { maxParamLength: 1000 },
    // Router-level failures (an undecodable URL) leave as `{detail}` too.
    frameworkErrors: (error, request, reply) => sendError(error, request, reply, ctx.config.baseUrl),
    ...connectionOptions(ctx.config),
  });
  const connections = shareConnections(app.server as unknown as Server, {
    maxConnections: ctx.config.maxConnections,
    // Behind a trusted proxy every connection is the proxy's: clients are told apart by the forwarded address, per request.
    maxPerClient: ctx.config.trustProxy === false ? ctx.config.maxConnectionsPerAddress : undefined,
  });
  const longPolls = new LongPollBudget(ctx.config.longPolls);
  const waits: WaitAllowances = (request, reply, actor) => waitAllowance(request, reply, actor, longPolls, connections);
  recordSharing(ctx, connections, longPolls);

  const allowedMethods = trackAllowedMethods(app);
  app.setValidatorCompiler(createValidatorCompiler(opts.sharedSchemas));
  app.setSerializerCompiler(createSerializerCompiler(opts.sharedSchemas));
  for (const schema of opts.sharedSchemas) app.addSchema(schema);

  // protocol: Conventions, bodies are JSON: only our own JSON parser is
  // installed (Fastify's default text/plain parser would let a string reach the
  // validator), so any other media type is a 415. An empty body is "no body"
  // (operations without input may be called with or without `{}`), malformed
  // JSON is a 422 like every other validation failure, and prototype-poisoning
  // keys are rejected. The body is decoded here rather than by Fastify, which
  // would silently turn bytes that are not UTF-8 into U+FFFD: text is stored
  // verbatim, so it must be exactly what the client sent (422 otherwise).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const charset = declaredCharset(req.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return done(new AtriumError('unsupported_media_type', `request bodies must be JSON in UTF-8; charset=${charset} is not accepted`), undefined);
    }
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer);
    } catch {
      return done(invalid('body_malformed', 'request body is not valid UTF-8'), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(invalid('body_malformed', `request body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`), undefined);
    }
    let parsed: unknown;
    try {
      parsed = secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      return done(invalid('body_malformed', 'request body is not valid JSON'), undefined);
    }
    // The MCP endpoint checks each tool call's arguments itself, so that such text
    // is a tool error like any other invalid argument rather than a failed request.
    const unstorable = checksOwnText(req) ? undefined : findUnstorableText(parsed);
    if (unstorable) return done(invalid('validation_failed', `${unstorable} must be UTF-8 text without NUL characters or unpaired surrogates`), undefined);
    done(null, parsed);
  });

  // One line per request, at debug when it was answered below 500: at the default level
  // (info) a person at a terminal sees starts, sign-in mail, warnings and errors, not every
  // poll (docs/configuration.md, "Logging"). Answers of 500 and more are warnings.
  app.addHook('onResponse', (request, reply, done) => {
    const level = reply.statusCode >= 500 ? 'warn' : 'debug';
    if ((request.log as unknown as Logger).isLevelEnabled(level)) request.log[level]({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });

  // Path and query values reach the databases too; PostgreSQL cannot hold a NUL.
  app.addHook('onRequest', (request, _reply, done) => {
    done(/%00/i.test(request.url) ? invalid('validation_failed', 'the URL must not contain NUL characters') : undefined);
  });

  // A node whose database file or data directory went away takes no writes (storage/file-watch.ts); reads go on.
  app.addHook('onRequest', (request, _reply, done) => {
    const refused = ctx.db.writesRefused;
    done(refused !== undefined && !READ_METHODS.has(request.method) ? new AtriumError('node_unavailable', refused) : undefined);
  });

  // Responses are compressed when the client asks (the contract is ~160 KB raw, ~16 KB gzipped).
  // gzip and deflate only: brotli at its default quality costs far more CPU per dynamic response.
  await app.register(compress, { threshold: 1024, encodings: ['gzip', 'deflate'] });
  await app.register(cookie);
  await app.register(swagger, openApiDocumentation(ctx.config.baseUrl, opts.operations));

  app.setErrorHandler((error: FastifyError | AtriumError, request, reply) => sendError(error, request, reply, ctx.config.baseUrl));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(path);
    if (allowed.length > 0) {
      reply
        .code(405)
        .header('allow', allowed.join(', '))
        .header(ERROR_CODE_HEADER, 'method_not_allowed')
        .send({ detail: `${path} does not take ${request.method}; it takes ${allowed.join(', ')}` });
      return;
    }
    reply.code(404).header(ERROR_CODE_HEADER, 'route_not_found').send({ detail: `no route ${request.method} ${path}` });
  });
  // Answers the routes above do not shape themselves (a library's refusal, the web
  // app's pages) still carry a code: the least specific one for their status.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode >= 400 && !reply.hasHeader(ERROR_CODE_HEADER)) {
      const code = CODE_BY_STATUS[reply.statusCode];
      if (code) reply.header(ERROR_CODE_HEADER, code);
    }
    done(null, payload);
  });

  const idempotencyKeys = new IdempotencyKeys(ctx.db.kysely, ctx.clock);
  for (const op of opts.operations) registerOperation(app, ctx, op, idempotencyKeys, waits);
  await opts.extraRoutes?.(app, waits);
  return app;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Route config of a route that checks stored text in its own request bodies (the MCP endpoint). */
export interface ChecksOwnTextConfig {
  checksOwnText?: boolean;
}

function checksOwnText(request: FastifyRequest): boolean {
  return (request.routeOptions.config as ChecksOwnTextConfig | undefined)?.checksOwnText === true;
}

const MiB = 1024 * 1024;

/**
 * 2 MiB, or twice the largest Resource version when that is configured above
 * 1 MiB: JSON escaping of newlines, quotes and backslashes can double a text,
 * and a version within its limit must not be refused as an oversized request.
 */
export function requestBodyLimit(resourceMaxBytes: number): number {
  return Math.max(2 * MiB, 2 * resourceMaxBytes);
}

function describeBytes(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes}-byte`;
}

/** The Actor each request authenticated as, set before its body is read. */
const actors = new WeakMap<FastifyRequest, Actor>();

/** What a request may hold open while it waits (long polls), given who is calling. */
export type WaitAllowances = (request: FastifyRequest, reply: FastifyReply, actor: Actor) => WaitAllowance;

/** What an operator sees of the sharing (docs/operations.md). */
function recordSharing(ctx: AppContext, connections: ConnectionShare, longPolls: LongPollBudget): void {
  ctx.metrics.gauge('atrium_http_connections', 'Client connections open on this node, counted against ATRIUM_MAX_CONNECTIONS.', () => connections.open);
  ctx.metrics.counter(
    'atrium_http_connections_turned_away_total',
    'Connections this node refused (a client at its own cap, or no one holding more than the newcomer) or took back for another client (idle, or a long poll answered early).',
    () => Object.entries(connections.tally).map(([outcome, count]) => [{ outcome }, count]),
    ['outcome'],
  );
  ctx.metrics.gauge('atrium_long_polls_held', 'Long polls held open on this node, counted against ATRIUM_MAX_LONG_POLLS.', () => longPolls.count);
  ctx.metrics.counter(
    'atrium_long_polls_unheld_total',
    'Long polls answered at once with Retry-After because a share was spent: of the whole node, of one address, or of one member.',
    () => Object.entries(longPolls.refused).map(([share, count]) => [{ share }, count]),
    ['share'],
  );
}

function registerOperation(app: FastifyInstance, ctx: AppContext, op: AnyOperation, idempotencyKeys: IdempotencyKeys, waits: WaitAllowances): void {
  const checkUrlIntegers = decimalIntegerCheck(op);
  const input = (request: FastifyRequest, reply: FastifyReply, answer: Answer) => {
    const actor = actors.get(request)!;
    return {
      params: request.params as never,
      query: request.query as never,
      body: (op.body ? request.body : undefined) as never,
      actor,
      ctx,
      response: responseControl(reply, ctx.config.baseUrl, answer),
      clientAddress: request.ip,
      waits: op.longPoll ? waits(request, reply, actor) : NO_WAITING,
    };
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const answer: Answer = { status: op.success.status };
    const result = await withinGrant(actors.get(request)!, () => op.handler(input(request, reply, answer)));
    reply.code(answer.status);
    if (answer.tagged !== undefined) return sendTagged(request, reply, answer.tagged.body, answer.tagged.etag);
    if (answer.status === 204) return reply.send();
    if (answer.json !== undefined) return reply.type('application/json; charset=utf-8').serializer(passThrough).send(answer.json);
    if (op.success.mediaType) reply.type(op.success.mediaType);
    return reply.send(result);
  };
  // The answer as bytes, for operations that keep it under an `Idempotency-Key` (docs/idempotency.md).
  const keptAnswer = async (request: FastifyRequest, reply: FastifyReply): Promise<KeptAnswer> => {
    const answer: Answer = { status: op.success.status };
    const result = await withinGrant(actors.get(request)!, () => op.handler(input(request, reply, answer)));
    // The serialiser picks the response schema by status, so the status comes first.
    reply.code(answer.status);
    return { status: answer.status, body: answer.status === 204 ? '' : (answer.json ?? (reply.serialize(result) as string)) };
  };
  app.route<RouteGenericInterface, { operation: string }>({
    method: op.method,
    url: toFastifyPath(op.path),
    schema: routeSchema(op),
    // Names the operation for per-operation metrics (src/observability/).
    config: { operation: op.name },
    ...(op.success.plainJson ? { serializerCompiler: () => (data: unknown) => JSON.stringify(data) } : {}),
    // Who is calling is settled before the body is parsed or validated, so a
    // caller without a usable credential learns that (401/403) rather than
    // details of a body it may not send at all (docs/decisions-local.md).
    // An OAuth grant narrowed to other Spaces is judged here too, from the path alone (docs/oauth.md, "Narrowing").
    onRequest: async (request) => {
      actors.set(request, narrowToGrantSpaces(op, await authenticate(request, op, ctx), request.params));
    },
    // Callback style: on hot read routes a promise per hook is a measurable share of a request.
    preValidation: (request, _reply, done) => {
      try {
        checkUrlIntegers?.(request);
      } catch (err) {
        return done(err as Error);
      }
      if (!op.body || request.body !== undefined) return done();
      if (op.bodyRequired) return done(invalid('body_malformed', 'a JSON request body is required'));
      // Operations whose body is optional accept an empty request as `{}`.
      request.body = {};
      done();
    },
    // Only operations declared with `idempotencyKey` ever touch the keys; the others keep the plain handler.
    handler: op.idempotencyKey ? withIdempotencyKey(idempotencyKeys, op, (request) => actors.get(request)!, handler, keptAnswer) : handler,
  });
}

/** What a handler decided about its answer beyond the returned body. */
interface Answer {
  status: number;
  json?: string;
  tagged?: { body: Buffer; etag: string };
}

function responseControl(reply: FastifyReply, baseUrl: string, answer: Answer): ResponseControl {
  const secure = baseUrl.startsWith('https:');
  return {
    setSessionCookie(token, expires) {
      reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/', expires });
    },
    clearSessionCookie() {
      reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
    },
    setHeader(name, value) {
      reply.header(name, value);
    },
    setStatus(status) {
      answer.status = status;
    },
    sendJson(json) {
      answer.json = json;
    },
    sendTagged(body, etag) {
      answer.tagged = { body, etag };
    },
  };
}

/** Clearer words for the framework's refusals a client can cause. */
const FRAMEWORK_DETAILS: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', detail: 'request bodies must be JSON (content-type: application/json)' },
};

/** Every error leaves as `{detail}` with its code in `Atrium-Error`; nothing internal (SQL, stacks) reaches a client. */
function sendError(error: FastifyError | AtriumError, request: FastifyRequest, reply: FastifyReply, baseUrl: string): void {
  if (error instanceof AtriumError) {
    reply.code(error.status).headers(error.headers).header(ERROR_CODE_HEADER, error.code);
    // RFC 9110 §11.6.1: a 401 says which scheme would do; a presented credential that failed is an invalid token (RFC 6750 §3).
    if (error.status === 401 && !reply.hasHeader('www-authenticate')) {
      // The challenge names the REST API's Protected Resource Metadata, where an OAuth client learns how to authorize (docs/oauth.md).
      const resource = resourceUrl(baseUrl, 'rest');
      reply.header('www-authenticate', request.headers.authorization === undefined ? bearerChallenge(resource) : bearerChallenge(resource, 'invalid_token'));
    }
    reply.send({ detail: error.detail });
    return;
  }
  // A read outside a unit of work that met another process's lock past the busy timeout: retryable, never a 500.
  if (isDatabaseBusy(error)) return sendError(databaseBusy(0), request, reply, baseUrl);
  if (error.validation) {
    reply.code(422).header(ERROR_CODE_HEADER, 'validation_failed').send({ detail: describeValidationError(error.validation as never, error.validationContext) });
    return;
  }
  const status = error.statusCode ?? 500;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    reply.code(413).header(ERROR_CODE_HEADER, 'body_too_large').send({ detail: `request body is larger than the ${describeBytes(request.routeOptions.bodyLimit)} limit` });
    return;
  }
  const known = FRAMEWORK_DETAILS[error.code];
  if (known) {
    reply.code(status).header(ERROR_CODE_HEADER, known.code).send({ detail: known.detail });
    return;
  }
  if (status === 400) {
    // Fastify's own 400s are all malformed input (bad JSON, bad content length, an undecodable URL).
    reply.code(422).header(ERROR_CODE_HEADER, 'validation_failed').send({ detail: error.message });
    return;
  }
  const code = status < 500 ? CODE_BY_STATUS[status] : undefined;
  if (code) {
    reply.code(status).header(ERROR_CODE_HEADER, code).send({ detail: error.message });
    return;
  }
  request.log.error({ err: error }, 'unhandled error');
  reply.code(500).header(ERROR_CODE_HEADER, 'internal_error').send({ detail: 'internal server error' });
}

