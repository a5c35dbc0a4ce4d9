import { createHash, timingSafeEqual } from 'node:crypto';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type RawServerDefault } from 'fastify';
import type { Logger } from 'pino';
import { CallWithTicket, TicketIssueRequest, type LedgerPage } from '../shared/gateway-wire.js';
import { callResultStream, callWithTicket } from './call.js';
import type { GatewayContext } from './context.js';
import { GatewayError } from './errors.js';
import { issueTicket } from './issue.js';
import { readLedger } from './ledger.js';

/** Request bodies carry the exact upstream body in base64; beyond this the service has no business sending. */
const BODY_LIMIT = 12 * 1024 * 1024;

/**
 * The gateway's HTTP interface. Every refusal is exactly `{code, detail}`
 * with its code's one status; requests are logged by method, path and status
 * only, never their headers, query or bodies, which carry keys and tickets.
 */
export function createGatewayServer(ctx: GatewayContext): FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger> {
  const http = Fastify({
    loggerInstance: ctx.log,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
  });

  http.addHook('onResponse', async (req, reply) => {
    ctx.log.info({ method: req.method, path: req.url.split('?')[0], status: reply.statusCode }, 'request');
  });

  http.setNotFoundHandler((_req, reply) => {
    void reply.code(404).send({ code: 'route_not_found', detail: 'no such endpoint' });
  });

  http.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    if (err instanceof GatewayError) {
      if (err.retryAfter !== undefined) void reply.header('retry-after', String(err.retryAfter));
      return reply.code(err.status).send({ code: err.code, detail: err.detail });
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      // Fastify's own refusals (not JSON, too large, wrong content type) are a malformed request.
      return reply.code(422).send({ code: 'invalid_request', detail: err.message });
    }
    ctx.log.error({ err: { message: err.message } }, 'unexpected gateway failure');
    return reply.code(503).send({ code: 'gateway_unavailable', detail: 'the gateway failed to handle the request' });
  });

  http.get('/healthz', async () => ({ status: 'ok' }));

  const issueBody = compile(TicketIssueRequest);
  http.post('/v1/tickets', async (req, reply) => {
    requireBearer(req, ctx.config.issuerKey);
    const ticket = await issueTicket(ctx, issueBody(req.body));
    return reply.code(201).send(ticket);
  });

  const callBody = compile(CallWithTicket);
  http.post('/v1/call', async (req, reply) => {
    // The call keeps its place until the answer is written out, or the caller
    // has gone, which may happen while the upstream is still answering.
    let closed = false;
    const gone = () => {
      closed = true;
    };
    reply.raw.once('close', gone);
    const answer = await callWithTicket(ctx, callBody(req.body).ticket);
    reply.raw.off('close', gone);
    if (closed) answer.release();
    else reply.raw.once('close', answer.release);
    const { stream, length } = callResultStream(answer);
    return reply.type('application/json; charset=utf-8').header('content-length', length).send(stream);
  });

  http.get('/v1/events', async (req: FastifyRequest, reply: FastifyReply) => {
    if (ctx.config.auditKey === undefined) throw new GatewayError('audit_disabled', 'ledger reads are off: ATRIUM_GATEWAY_AUDIT_KEY is not set');
    requireBearer(req, ctx.config.auditKey);
    const q = eventsQuery(req.query as Record<string, string | string[] | undefined>);
    let events;
    try {
      // Outcome records commit as their answers go out (call.ts): a reader sees those of every answer given.
      await ctx.ledger.idle();
      events = await readLedger(ctx.store.db, q);
    } catch (err) {
      ctx.log.error({ err: { message: err instanceof Error ? err.message : String(err) } }, 'the ledger store failed');
      throw new GatewayError('audit_unavailable', 'the audit ledger cannot be read');
    }
    const page: LedgerPage = { events, cursor: events.at(-1)?.seq ?? q.since };
    return reply.send(page);
  });

  return http;
}

/** Validates a body against its wire schema: 422 `invalid_request` naming the first problem. */
function compile<T extends TSchema>(schema: T) {
  const check = TypeCompiler.Compile(schema);
  return (body: unknown) => {
    if (!check.Check(body)) {
      const first = check.Errors(body).First();
      throw new GatewayError('invalid_request', first ? `${first.path || 'body'}: ${first.message}` : 'the body is malformed');
    }
    return body;
  };
}

/**
 * Compares digests of equal length in constant time, so neither the key's
 * content nor its length leaks through how long a refusal takes.
 */
function requireBearer(req: FastifyRequest, expected: string): void {
  const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  const given = createHash('sha256').update(match?.[1] ?? '').digest();
  const wanted = createHash('sha256').update(expected).digest();
  if (!match || !timingSafeEqual(given, wanted)) throw new GatewayError('unauthorized', 'a valid bearer key is required');
}

function eventsQuery(query: Record<string, string | string[] | undefined>) {
  const single = (name: string): string | undefined => {
    const value = query[name];
    if (Array.isArray(value)) throw new GatewayError('invalid_request', `${name} is given more than once`);
    return value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = single(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new GatewayError('invalid_request', `${name} must be an integer from ${min} to ${max}`);
    }
    return value;
  };
  const space = single('space');
  const actor = single('actor');
  const runId = single('run_id');
  return {
    since: integer('since', 0, 0, Number.MAX_SAFE_INTEGER),
    limit: integer('limit', 100, 1, 500),
    ...(space !== undefined ? { space } : {}),
    ...(actor !== undefined ? { actor } : {}),
    ...(runId !== undefined ? { runId } : {}),
  };
}
