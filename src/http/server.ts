import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TSchema } from '@sinclair/typebox';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import secureJsonParse from 'secure-json-parse';
import type { AppContext } from '../app-context.js';
import type { AnyOperation, ResponseControl } from '../operations/operation.js';
import { SESSION_COOKIE } from '../identity/tokens.js';
import { AtriumError, invalid } from '../shared/errors.js';
import { authenticate } from './authenticate.js';
import { openApiDocumentation, routeSchema, toFastifyPath } from './openapi.js';
import { createValidatorCompiler, describeValidationError } from './validation.js';

export interface HttpServerOptions {
  operations: AnyOperation[];
  sharedSchemas: TSchema[];
  /** Extra routes outside the API contract (the web app, /healthz). */
  extraRoutes?: (app: FastifyInstance) => void | Promise<void>;
}

/**
 * The thin HTTP edge: every API route is generated from an operation
 * declaration. Parsing, authentication and error shaping happen here once;
 * handlers receive typed input and an Actor and return the response body.
 */
export async function buildHttpServer(ctx: AppContext, opts: HttpServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: 2 * 1024 * 1024,
  });

  app.setValidatorCompiler(createValidatorCompiler(opts.sharedSchemas));
  for (const schema of opts.sharedSchemas) app.addSchema(schema);

  // Our own JSON parser: an empty body is "no body" (operations without input
  // may be called with or without `{}`), malformed JSON is a 422 like every
  // other validation failure, and prototype-poisoning keys are rejected.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(invalid('request body is not valid JSON'), undefined);
    }
  });

  await app.register(cookie);
  await app.register(swagger, openApiDocumentation(ctx.config.baseUrl));

  app.setErrorHandler((error: FastifyError | AtriumError, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `no route ${request.method} ${request.url.split('?')[0]}` });
  });

  for (const op of opts.operations) registerOperation(app, ctx, op);
  await opts.extraRoutes?.(app);
  return app;
}

function registerOperation(app: FastifyInstance, ctx: AppContext, op: AnyOperation): void {
  app.route({
    method: op.method,
    url: toFastifyPath(op.path),
    schema: routeSchema(op),
    // Operations whose body is optional accept an empty request as `{}`.
    preValidation: async (request) => {
      if (op.body && !op.bodyRequired && request.body === undefined) request.body = {};
    },
    handler: async (request, reply) => {
      const actor = await authenticate(request, op, ctx);
      let status: number = op.success.status;
      const result = await op.handler({
        params: request.params as never,
        query: request.query as never,
        body: (op.body ? request.body : undefined) as never,
        actor,
        ctx,
        response: responseControl(reply, ctx.config.baseUrl, (s) => (status = s)),
        clientAddress: request.ip,
      });
      reply.code(status);
      if (status === 204) return reply.send();
      return reply.send(result);
    },
  });
}

function responseControl(reply: FastifyReply, baseUrl: string, setStatus: (s: 200 | 201 | 202) => void): ResponseControl {
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
    setStatus,
  };
}

/** Every error leaves as `{detail}`; nothing internal (SQL, stacks) reaches a client. */
function sendError(error: FastifyError | AtriumError, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof AtriumError) {
    reply.code(error.status).headers(error.headers).send({ detail: error.detail });
    return;
  }
  if (error.validation) {
    reply.code(422).send({ detail: describeValidationError(error.validation as never, error.validationContext) });
    return;
  }
  const status = error.statusCode ?? 500;
  if (status === 400) {
    // Fastify's own 400s are all malformed input (bad JSON, bad content length).
    reply.code(422).send({ detail: error.message });
    return;
  }
  if (status < 500) {
    reply.code(status).send({ detail: error.message });
    return;
  }
  request.log.error({ err: error }, 'unhandled error');
  reply.code(500).send({ detail: 'internal server error' });
}

