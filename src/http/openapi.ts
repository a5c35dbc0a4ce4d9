import type { SwaggerOptions } from '@fastify/swagger';
import type { AnyOperation, CredentialScheme, ErrorStatus } from '../operations/operation.js';
import { TAGS } from '../operations/tags.js';
import { PROTOCOL } from '../shared/protocol.js';
import { ERROR_CATALOGUE, ERROR_CODES } from '../shared/error-catalogue.js';
import { IDEMPOTENCY_KEY_HEADERS } from './idempotency.js';

interface OpenApiOperation {
  operationId?: string;
  'x-atrium-audience'?: string;
  requestBody?: { required?: boolean };
  responses?: Record<string, object>;
}

/** The statuses the edge may answer on any request, before an operation is chosen. */
const TRANSPORT_ERRORS = [400, 405, 408, 431] as const;

type DeclaredStatus = ErrorStatus | (typeof TRANSPORT_ERRORS)[number] | 500;

/**
 * `Atrium-Error` as one error status declares it: the codes of the catalogue
 * with that status, so a generated client knows every code it can meet there.
 */
function errorCodeHeader(status: string): Record<string, unknown> {
  const codes = ERROR_CODES.filter((code) => String(ERROR_CATALOGUE[code].status) === status);
  return {
    'Atrium-Error': {
      description: 'The error code (docs/errors.md): branch on it, never on `detail`.',
      required: true,
      schema: { type: 'string', enum: codes },
    },
  };
}

/** Headers some error answers always carry, declared so generated clients can read them. */
const ERROR_HEADERS: Record<string, Record<string, unknown>> = {
  '405': { Allow: { description: 'The methods this path takes.', schema: { type: 'string' } } },
  '401': {
    'WWW-Authenticate': {
      description:
        'Always `Bearer realm="atrium", resource_metadata="<base>/.well-known/oauth-protected-resource/v0"` (where an OAuth client discovers how to authorize) ' +
        'and `scope="read write"` (the scope to ask for), with `error="invalid_token"` when a credential was presented and failed.',
      schema: { type: 'string' },
    },
  },
  '429': { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } } },
  '503': { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } } },
};

/** The name each error answer has in `components.responses`. */
const ERROR_RESPONSE_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '405': 'MethodNotAllowed',
  '408': 'RequestTimeout',
  '431': 'HeadersTooLarge',
  '401': 'Unauthenticated',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '410': 'Gone',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'ValidationFailed',
  '429': 'TooManyRequests',
  '500': 'InternalError',
  '502': 'BadGateway',
  '503': 'Unavailable',
  '504': 'GatewayTimeout',
};

const ERROR_DESCRIPTIONS: Record<DeclaredStatus, string> = {
  400: 'The request is not valid HTTP: bad framing (content length, chunked encoding), or a header value holding a control character. The connection is closed.',
  405: 'This path does not take this method; `Allow` lists those it takes.',
  408: 'The headers and the whole body did not arrive in time. The connection is closed.',
  431: 'The request headers are too large. The connection is closed.',
  401: 'No credential, an unknown or malformed key, sign-in required, or an invalid secret. Carries `WWW-Authenticate: Bearer realm="atrium", resource_metadata="…", scope="read write"` (with `error="invalid_token"` when a credential was presented).',
  403: 'The credential is valid but not allowed here (wrong steward key, role or member status; an OAuth grant that is read-only, with `WWW-Authenticate: Bearer error="insufficient_scope", scope="write"`, or narrowed to other Spaces).',
  404: 'No such record.',
  409: 'The record is not in a state that allows this, or it already exists; or a request with the same `Idempotency-Key` is still running.',
  410: 'Expired.',
  413: 'The request body is too large.',
  415: 'The request body is not JSON.',
  422:
    'Validation failed: a parameter or body field breaks its schema (a malformed path value included), or the body is not valid JSON in UTF-8, ' +
    'nests deeper than 64 levels, or holds text with a NUL character or an unpaired surrogate; or an `Idempotency-Key` is malformed or was used with another body. ' +
    '`detail` names the field.',
  429: 'Too many requests; retry later.',
  502: 'An upstream service answered badly or too much (credential calls: `upstream_error`, `response_too_large`).',
  503:
    'The host is busy (`host_busy`, `gateway_busy`): retry after the `Retry-After` seconds. Or this node cannot serve it (`node_unavailable`: ' +
    'it is shutting down, cannot reach its database, or its storage went away; `detail` says which): try another node.',
  504: 'An upstream service did not answer in time (credential calls: `upstream_timeout`).',
  500: 'Internal error; the body never carries internals.',
};

const SECURITY_NAMES: Record<CredentialScheme, string[]> = {
  member_key: ['memberKey'],
  session: ['sessionBearer', 'sessionCookie'],
  steward_key: ['stewardKey'],
};

/** What a `conditional` operation's answer carries (src/http/conditional.ts). */
const CONDITIONAL_HEADERS = {
  ETag: { type: 'string', description: 'Weak entity tag of this answer; send it back as `If-None-Match` to get 304 while it is current.' },
  'Cache-Control': { type: 'string', description: '`private, no-cache`: answers may differ by reader, and are revalidated every time.' },
};

/** What a long poll's answer may carry (src/events/feed-response.ts; docs/http.md, "Sharing the server fairly"). */
const LONG_POLL_HEADERS = {
  'Retry-After': {
    type: 'integer',
    minimum: 0,
    description:
      'Present when the poll was not held as long as `wait` asked: the caller already held its share of long polls, or the host needed the connection. ' +
      'The page is what an ordinary poll answers; wait this many seconds before polling again.',
  },
};

const IF_NONE_MATCH = {
  type: 'object',
  properties: {
    'if-none-match': {
      type: 'string',
      maxLength: 1024,
      description: 'Entity tags of answers the client holds (from `ETag`); if one is current the answer is 304 with no body.',
    },
  },
};

/** `/v0/spaces/{slug}` → `/v0/spaces/:slug`. */
export function toFastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * The error statuses the edge itself can answer, on top of those the operation
 * declares: where a credential is read at all, a presented one that is unknown
 * (401) or belongs to a suspended member (403) is refused even if anonymous
 * calls are accepted (public operations read none: src/http/authenticate.ts);
 * every method that may carry a body can meet a non-JSON (415), oversized (413)
 * or malformed (422) one; any input at all can fail validation (422); and any
 * request can be malformed HTTP (400), late (408), carry too large headers
 * (431), or use a method its path does not take (405). A node whose storage
 * went away under it refuses every method that could write (503
 * `node_unavailable`, src/storage/file-watch.ts).
 */
function documentedErrors(op: AnyOperation): DeclaredStatus[] {
  const errors = new Set<DeclaredStatus>([...op.errors, ...TRANSPORT_ERRORS]);
  if (op.auth.schemes.length > 0) for (const status of [401, 403] as const) errors.add(status);
  if (op.method !== 'GET') for (const status of [413, 415, 422, 503] as const) errors.add(status);
  if (op.params || op.query || op.body) errors.add(422);
  // A key still in use by a running request (409), a malformed key or one used with another body (422).
  if (op.idempotencyKey) for (const status of [409, 422] as const) errors.add(status);
  return [...errors].sort((a, b) => a - b);
}

/** The Fastify route schema of an operation: validation, serialisation and the contract at once. */
export function routeSchema(op: AnyOperation): Record<string, unknown> {
  const response: Record<string, unknown> = {};
  const { schema, mediaType, description } = op.success;
  response[op.success.status] = !schema
    ? { description, type: 'null' }
    : mediaType
      ? { description, content: { [mediaType]: { schema } } }
      : { ...schema, description };
  for (const status of op.success.alsoStatuses ?? []) response[status] = response[op.success.status];
  if (op.conditional) {
    response[op.success.status] = { ...(response[op.success.status] as object), headers: CONDITIONAL_HEADERS };
    response[304] = { description: 'The answer named by `If-None-Match` is still current; no body.', type: 'null' };
  }
  if (op.longPoll) {
    const success = response[op.success.status] as { headers?: object };
    response[op.success.status] = { ...success, headers: { ...success.headers, ...LONG_POLL_HEADERS } };
  }
  for (const status of [...documentedErrors(op), 500] as const) {
    response[status] = { description: ERROR_DESCRIPTIONS[status], $ref: 'Error#' };
  }
  const security = op.auth.schemes.flatMap((s) => SECURITY_NAMES[s].map((name) => ({ [name]: [] })));
  if (op.auth.anonymous) security.push({});
  return {
    operationId: op.name,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security,
    ...(op.params ? { params: op.params } : {}),
    ...(op.conditional ? { headers: IF_NONE_MATCH } : {}),
    ...(op.idempotencyKey ? { headers: IDEMPOTENCY_KEY_HEADERS } : {}),
    ...(op.query ? { querystring: op.query } : {}),
    // A one-item `examples` becomes the media type's `example` in the contract (@fastify/swagger).
    ...(op.body ? { body: op.examples?.body !== undefined ? { ...op.body, examples: [op.examples.body] } : op.body } : {}),
    response,
  };
}

export function openApiDocumentation(baseUrl: string, operations: AnyOperation[]): SwaggerOptions {
  const bodyRequired = new Map(operations.map((op) => [op.name, op.bodyRequired === true]));
  const audiences = new Map(operations.map((op) => [op.name, op.who]));
  const answerExamples = new Map(operations.flatMap((op) => (op.examples?.response !== undefined ? [[op.name, { status: op.success.status, example: op.examples.response }]] : [])));
  return {
    // @fastify/swagger marks every request body required; ours are required only
    // where the operation says so (e.g. archive needs at least `{}`). Error
    // answers mean the same on every operation, so each status is declared once
    // in `components.responses` (with the headers it carries) and referenced:
    // the contract and every client generated from it stay a fraction the size.
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const { openapiObject } = documentObject;
      const shared: Record<string, unknown> = {};
      for (const methods of Object.values(openapiObject.paths ?? {})) {
        for (const operation of Object.values(methods as Record<string, OpenApiOperation>)) {
          if (operation.requestBody && operation.operationId !== undefined) {
            operation.requestBody.required = bodyRequired.get(operation.operationId) ?? false;
          }
          // Who may call it and succeed (docs/who-may-do-what.md), for client authors and the tools they generate with.
          const audience = operation.operationId !== undefined ? audiences.get(operation.operationId) : undefined;
          if (audience !== undefined) operation['x-atrium-audience'] = audience;
          // Set here: an answer schema that is a reference keeps only its `$ref` in the route schema's conversion.
          const shown = operation.operationId !== undefined ? answerExamples.get(operation.operationId) : undefined;
          const answer = shown ? (operation.responses?.[shown.status] as { content?: Record<string, { example?: unknown }> } | undefined) : undefined;
          for (const media of Object.values(answer?.content ?? {})) media.example = shown!.example;
          for (const [status, answer] of Object.entries(operation.responses ?? {})) {
            const name = ERROR_RESPONSE_NAMES[status];
            if (name === undefined) continue;
            shared[name] ??= { ...answer, headers: { ...errorCodeHeader(status), ...ERROR_HEADERS[status] } };
            operation.responses![status] = { $ref: `#/components/responses/${name}` };
          }
        }
      }
      openapiObject.components = { ...openapiObject.components, responses: shared as never };
      return openapiObject;
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Atrium',
        version: PROTOCOL,
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
        contact: { name: 'The operators of this Atrium host', url: baseUrl },
        description:
          'Atrium hosts Spaces: shared rooms where people and AI agents work together under a charter. ' +
          'Every error body is `{detail}`, and every error answer carries its code in the `Atrium-Error` header (see docs/errors.md). Cursors are host-wide integers. ' +
          'This document is readable as a reference at `/docs`, and the protocol guide is at `/docs/protocol`.',
      },
      externalDocs: { description: 'Atrium protocol guide', url: `${baseUrl}/docs/protocol` },
      servers: [{ url: baseUrl, description: 'This Atrium host.' }],
      tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: {
          memberKey: { type: 'http', scheme: 'bearer', description: 'Member API key, prefix `sk_atrium_`.' },
          sessionBearer: { type: 'http', scheme: 'bearer', description: 'Human sign-in session token, prefix `st_atrium_`.' },
          sessionCookie: { type: 'apiKey', in: 'cookie', name: 'atrium_session', description: 'Human sign-in session cookie.' },
          stewardKey: { type: 'http', scheme: 'bearer', description: 'Bootstrap / break-glass key from ATRIUM_STEWARD_KEY.' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  };
}
