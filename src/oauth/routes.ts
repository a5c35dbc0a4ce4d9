import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import { AtriumError } from '../shared/errors.js';
import { ERROR_CODE_HEADER, errorStatus, type ErrorCode } from '../shared/error-catalogue.js';
import { consumeRateLimit } from '../shared/rate-limit.js';
import { startAuthorization } from './authorization.js';
import { PROTECTED_RESOURCE_METADATA_PATH, RESOURCE_PATHS, resourceUrl, type ResourceName } from './challenge.js';
import { registerClient } from './clients.js';
import { invalidRequest, OAuthError } from './errors.js';
import { busyPage, FAULT_PAGE_HEADERS, faultPage, prefersHtml, renderFaultPage } from './fault-page.js';
import { exchange, revokeToken } from './tokens.js';

/** The authorization server's own endpoints; advertised in its metadata, where clients discover them. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  register: '/oauth/register',
  metadata: '/.well-known/oauth-authorization-server',
} as const;

const SCOPES = ['read', 'write'];

/** Authorization Server Metadata (RFC 8414): what a client needs to find and use the endpoints. */
export function authorizationServerMetadata(baseUrl: string): Record<string, unknown> {
  return {
    issuer: baseUrl,
    authorization_endpoint: baseUrl + OAUTH_PATHS.authorize,
    token_endpoint: baseUrl + OAUTH_PATHS.token,
    registration_endpoint: baseUrl + OAUTH_PATHS.register,
    revocation_endpoint: baseUrl + OAUTH_PATHS.revoke,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: SCOPES,
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** Protected Resource Metadata (RFC 9728) of the REST API or the MCP endpoint. */
export function protectedResourceMetadata(baseUrl: string, which: ResourceName): Record<string, unknown> {
  return {
    resource: resourceUrl(baseUrl, which),
    authorization_servers: [baseUrl],
    scopes_supported: SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: which === 'mcp' ? 'Atrium MCP' : 'Atrium REST API',
  };
}

/**
 * The OAuth 2.1 authorization server's endpoints (docs/oauth.md): not REST
 * operations (they take forms and answer RFC 6749 errors, `{error,
 * error_description}`), so they live outside the API contract, in a scope of
 * their own where forms are parsed. Metadata and the endpoints a browser-based
 * client calls directly answer any origin: none of them reads a cookie.
 */
export async function registerOAuthEndpoints(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const hidden = { schema: { hide: true } };
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
      try {
        done(null, parseForm(body as string));
      } catch (err) {
        done(err as Error, undefined);
      }
    });
    scope.addHook('onSend', async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
      reply.header('cache-control', 'no-store');
    });
    scope.setErrorHandler((error, request, reply) => sendOAuthError(error, request, reply));

    for (const which of Object.keys(RESOURCE_PATHS) as ResourceName[]) {
      scope.get(PROTECTED_RESOURCE_METADATA_PATH + RESOURCE_PATHS[which], hidden, async () => protectedResourceMetadata(base, which));
    }
    scope.get(OAUTH_PATHS.metadata, hidden, async () => authorizationServerMetadata(base));
    // Browsers ask first when a client sends headers of its own (MCP clients send `MCP-Protocol-Version` even to the metadata).
    const metadataPaths = [OAUTH_PATHS.metadata, ...Object.values(RESOURCE_PATHS).map((path) => PROTECTED_RESOURCE_METADATA_PATH + path)];
    for (const path of [OAUTH_PATHS.token, OAUTH_PATHS.revoke, OAUTH_PATHS.register, ...metadataPaths]) {
      scope.options(path, hidden, async (_request, reply) =>
        reply
          .code(204)
          .header('access-control-allow-methods', metadataPaths.includes(path) ? 'GET' : 'POST')
          .header('access-control-allow-headers', 'content-type, authorization, mcp-protocol-version')
          .send(),
      );
    }

    scope.get(OAUTH_PATHS.authorize, hidden, async (request, reply) => {
      try {
        // Anyone may start an authorization, and each one may fetch a client's metadata
        // document and stores a request until it expires: bound both per address.
        await ctx.db.transaction((tx) =>
          consumeRateLimit(tx, {
            bucket: 'oauth_authorization',
            keyDigest: ctx.addressDigest(request.ip),
            limit: ctx.config.oauthAuthorizationRateLimit,
            windowMs: 60 * 60 * 1000,
            detail: 'too many authorizations started from this address; try again later',
          }),
        );
        const outcome = await startAuthorization(ctx.db, singleValues(request.query), { baseUrl: base, egress: ctx.egress, now: ctx.clock.now() });
        return reply.redirect('consent' in outcome ? outcome.consent : outcome.redirect, 302);
      } catch (error) {
        // A person sent here by a program is shown a page; a program gets the OAuth error as JSON.
        if (!prefersHtml(request.headers.accept)) throw error;
        return sendFaultPage(error, request, reply, new URL(base).host);
      }
    });

    scope.post(OAUTH_PATHS.token, hidden, async (request) => exchange(ctx.db, formOf(request)));

    scope.post(OAUTH_PATHS.revoke, hidden, async (request, reply) => {
      await revokeToken(ctx.db, formOf(request));
      return reply.code(200).send();
    });

    scope.post(OAUTH_PATHS.register, hidden, async (request, reply) => {
      const body = request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OAuthError(400, 'invalid_client_metadata', 'the body must be a JSON object of client metadata');
      const registered = await ctx.db.transaction(async (tx) => {
        await consumeRateLimit(tx, {
          bucket: 'oauth_registration',
          keyDigest: ctx.addressDigest(request.ip),
          limit: ctx.config.oauthRegistrationRateLimit,
          windowMs: 60 * 60 * 1000,
          detail: 'too many client registrations from this address; try again later, or use a Client ID Metadata Document',
        });
        return registerClient(tx, body as Record<string, unknown>);
      });
      return reply.code(201).send({
        client_id: registered.client_id,
        client_id_issued_at: Math.floor(Date.parse(registered.created_ts) / 1000),
        ...(registered.client_name !== null ? { client_name: registered.client_name } : {}),
        redirect_uris: registered.redirect_uris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
    });
  });
}

/** A form body; a parameter sent twice is refused, as RFC 6749 asks. */
function parseForm(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(out, name)) throw invalidRequest(`parameter ${name} was sent more than once`);
    out[name] = value;
  }
  return out;
}

function formOf(request: FastifyRequest): Record<string, string | undefined> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('the body must be an application/x-www-form-urlencoded form');
  return body as Record<string, string>;
}

/** Query parameters, each at most once. */
function singleValues(query: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(value)) throw invalidRequest(`parameter ${name} was sent more than once`);
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** The authorization endpoint's refusal, as a page for a browser; anything unexpected still leaves as an OAuth error. */
function sendFaultPage(error: unknown, request: FastifyRequest, reply: FastifyReply, hostName: string): FastifyReply {
  if (error instanceof OAuthError) {
    return reply.code(error.status).headers(error.headers).headers(FAULT_PAGE_HEADERS).header(ERROR_CODE_HEADER, error.code).send(renderFaultPage(faultPage(error.fault, hostName), error.body));
  }
  if (error instanceof AtriumError && error.status === 429) {
    const page = busyPage(Number(error.headers['retry-after'] ?? 3600));
    return reply.code(429).headers(error.headers).headers(FAULT_PAGE_HEADERS).header(ERROR_CODE_HEADER, 'rate_limited').send(renderFaultPage(page, { error: 'too_many_requests', error_description: error.detail }));
  }
  sendOAuthError(error, request, reply);
  return reply;
}

/** Every failure here leaves as an OAuth error; nothing internal reaches the client. */
function sendOAuthError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof OAuthError) {
    reply.code(error.status).headers(error.headers).header(ERROR_CODE_HEADER, error.code).send(error.body);
    return;
  }
  if (error instanceof AtriumError && error.status === 429) {
    reply.code(429).headers(error.headers).header(ERROR_CODE_HEADER, 'rate_limited').send({ error: 'too_many_requests', error_description: error.detail });
    return;
  }
  if (error instanceof AtriumError && error.status < 500) {
    reply.code(400).header(ERROR_CODE_HEADER, 'oauth_invalid_request').send({ error: 'invalid_request', error_description: error.detail });
    return;
  }
  const status = (error as { statusCode?: number }).statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    const code: ErrorCode = status === 413 ? 'body_too_large' : status === 415 ? 'unsupported_media_type' : 'oauth_invalid_request';
    reply.code(errorStatus(code)).header(ERROR_CODE_HEADER, code).send({ error: 'invalid_request', error_description: (error as Error).message });
    return;
  }
  request.log.error({ err: error }, 'unhandled error at an OAuth endpoint');
  reply.code(500).header(ERROR_CODE_HEADER, 'internal_error').send({ error: 'server_error', error_description: 'internal server error' });
}
