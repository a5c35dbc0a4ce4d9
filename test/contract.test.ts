import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Validator } from '@seriousme/openapi-schema-validator';
import { STORABLE_TEXT_PATTERN } from '../src/content/text.js';
import { buildHttpServer } from '../src/http/server.js';
import { createAjv } from '../src/http/validation.js';
import { allOperations, sharedSchemas } from '../src/operations/index.js';
import { defineOperation } from '../src/operations/operation.js';
import { backends, startServer, type TestServer } from './support/server.js';

interface ContractResponse {
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: { $ref?: string } }>;
}

interface ContractOperation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: { required?: boolean; content?: Record<string, unknown> };
  responses: Record<string, ContractResponse>;
}

interface Contract {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, ContractOperation>>;
  components: {
    schemas: Record<string, { properties?: Record<string, unknown>; required?: string[]; additionalProperties?: boolean }>;
    responses?: Record<string, ContractResponse>;
  };
}

const METHODS = ['get', 'post', 'patch', 'put', 'delete'];

/** protocol: Versioning. The contract is served at /v0/openapi.json, OpenAPI 3.1. */
for (const backend of backends()) {
  describe(`OpenAPI contract (${backend})`, () => {
    let server: TestServer;
    let contract: Contract;
    const operations = allOperations(() => ({}));

    before(async () => {
      server = await startServer(backend);
      const res = await server.request('GET', '/v0/openapi.json');
      assert.equal(res.status, 200);
      contract = res.body;
    });
    after(() => server.stop());

    const operationAt = (method: string, path: string): ContractOperation | undefined =>
      contract.paths[path]?.[method.toLowerCase()];

    it('is a valid OpenAPI 3.1 document', async () => {
      assert.match(contract.openapi, /^3\.1\.\d+$/);
      const result = await new Validator().validate(contract as unknown as Record<string, unknown>);
      assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
      assert.equal(contract.info.version, 'atrium/0.1-draft');
    });

    it('declares every operation with its method, path, operationId and security', () => {
      const ids = new Set<string>();
      for (const op of operations) {
        const entry = operationAt(op.method, op.path);
        assert.ok(entry, `${op.method} ${op.path} is missing from the contract`);
        assert.equal(entry.operationId, op.name);
        assert.ok(!ids.has(op.name), `operationId ${op.name} is not unique`);
        ids.add(op.name);
        assert.ok(Array.isArray(entry.security) && entry.security.length > 0, `${op.name} has no security`);
        // An empty requirement appears exactly when anonymous calls are accepted.
        assert.equal(
          entry.security.some((requirement) => Object.keys(requirement).length === 0),
          op.auth.anonymous,
          `${op.name} anonymous access`,
        );
        const schemes = new Set(entry.security.flatMap((requirement) => Object.keys(requirement)));
        if (op.auth.schemes.includes('steward_key')) assert.ok(schemes.has('stewardKey'), op.name);
        if (op.auth.schemes.includes('member_key')) assert.ok(schemes.has('memberKey'), op.name);
        if (op.auth.schemes.includes('session')) assert.ok(schemes.has('sessionBearer') && schemes.has('sessionCookie'), op.name);
        if (!op.auth.schemes.includes('member_key')) assert.ok(!schemes.has('memberKey'), `${op.name} must not list member keys`);
      }
      // And nothing else: every contract operation is a declared one.
      const declared = new Set(operations.map((op) => `${op.method} ${op.path}`));
      for (const [path, methods] of Object.entries(contract.paths)) {
        for (const method of Object.keys(methods).filter((m) => METHODS.includes(m))) {
          assert.ok(declared.has(`${method.toUpperCase()} ${path}`), `${method} ${path} is not a declared operation`);
        }
      }
    });

    it('documents a success response and {detail} error responses for every operation', () => {
      const error = contract.components.schemas.Error!;
      assert.deepEqual(Object.keys(error.properties ?? {}), ['detail']);
      assert.deepEqual(error.required, ['detail']);
      assert.equal(error.additionalProperties, false);

      for (const op of operations) {
        const entry = operationAt(op.method, op.path)!;
        const success = entry.responses[String(op.success.status)];
        assert.ok(success, `${op.name} has no ${op.success.status} response`);
        assert.ok(success.description, op.name);
        const media = op.success.mediaType ?? 'application/json';
        if (op.success.schema) assert.ok(success.content?.[media]?.schema, `${op.name} success has no ${media} schema`);
        for (const also of op.success.alsoStatuses ?? []) assert.ok(entry.responses[String(also)], `${op.name} ${also}`);

        // Error answers are declared once in components.responses and referenced.
        const answer = (status: string) => {
          const declared = entry.responses[status];
          if (declared?.$ref === undefined) return declared;
          return contract.components.responses?.[declared.$ref.replace('#/components/responses/', '')];
        };
        const errorStatuses = Object.keys(entry.responses).filter((s) => s.startsWith('4') || s.startsWith('5'));
        for (const status of errorStatuses) {
          assert.match(entry.responses[status]!.$ref ?? '', /^#\/components\/responses\//, `${op.name} ${status} is a shared answer`);
          const schema = answer(status)?.content?.['application/json']?.schema;
          assert.equal(schema?.$ref, '#/components/schemas/Error', `${op.name} ${status} is not {detail}`);
        }
        assert.ok(answer('500'), `${op.name} 500`);
        // Declared errors, and what the edge itself answers: a credential is refused
        // only where one is read (public operations read none).
        for (const status of op.errors) assert.ok(answer(String(status)), `${op.name} does not document ${status}`);
        const readsCredentials = op.auth.schemes.length > 0;
        assert.equal(answer('401') !== undefined, readsCredentials || op.errors.includes(401), `${op.name} 401`);
        assert.equal(answer('403') !== undefined, readsCredentials || op.errors.includes(403), `${op.name} 403`);
        if (op.params || op.query || op.body || op.method !== 'GET') assert.ok(answer('422'), `${op.name} 422`);
        if (op.method !== 'GET') {
          assert.ok(answer('413') && answer('415'), `${op.name} 413/415`);
        }
        // Headers those answers always carry are declared for generated clients.
        if (answer('401')) assert.ok(answer('401')?.headers?.['WWW-Authenticate'], `${op.name} 401 declares WWW-Authenticate`);
        for (const status of ['429', '503']) {
          if (answer(status)) assert.ok(answer(status)?.headers?.['Retry-After'], `${op.name} ${status} declares Retry-After`);
        }
      }
    });

    it('marks request bodies required exactly where the operation requires one', () => {
      for (const op of operations) {
        const entry = operationAt(op.method, op.path)!;
        if (!op.body) {
          assert.equal(entry.requestBody, undefined, `${op.name} takes no body`);
          continue;
        }
        assert.ok(entry.requestBody?.content?.['application/json'], `${op.name} body is JSON`);
        assert.equal(entry.requestBody.required, op.bodyRequired === true, `${op.name} requestBody.required`);
      }
      assert.equal(operationAt('POST', '/v0/spaces/{slug}/archive')!.requestBody!.required, true);
    });

    it('states the storable-text rule on every free-text string a request takes, also behind a reference', () => {
      const unmarked = new Set<string>();
      const seen = new Set<unknown>();
      const walk = (node: unknown, where: string): void => {
        if (typeof node !== 'object' || node === null || seen.has(node)) return;
        seen.add(node);
        if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${where}[${i}]`));
        const schema = node as Record<string, unknown>;
        if (typeof schema.$ref === 'string') {
          const name = schema.$ref.replace('#/components/schemas/', '');
          return walk(contract.components.schemas[name], name);
        }
        const free = schema.type === 'string' && !('format' in schema) && !('enum' in schema) && !('const' in schema);
        if (free && schema.pattern === undefined) unmarked.add(where);
        for (const [key, value] of Object.entries(schema)) {
          if (key !== 'examples' && key !== 'example' && key !== 'default') walk(value, `${where}.${key}`);
        }
      };
      for (const [path, methods] of Object.entries(contract.paths)) {
        for (const [method, entry] of Object.entries(methods)) {
          const declared = entry as ContractOperation & { parameters?: Array<{ name: string; in: string; schema?: unknown }> };
          // A header cannot carry a NUL or a lone surrogate at all.
          for (const parameter of declared.parameters ?? []) {
            if (parameter.in !== 'header') walk(parameter.schema, `${method} ${path} ${parameter.name}`);
          }
          walk(declared.requestBody?.content?.['application/json'], `${method} ${path} body`);
        }
      }
      assert.deepEqual([...unmarked], []);
      const filter = JSON.stringify(contract.components.schemas.WebhookFilter);
      assert.equal(filter.split(JSON.stringify(STORABLE_TEXT_PATTERN)).length - 1, 2, 'exact and prefix carry the pattern');
    });

    it('shows examples of the main operations, each holding to its own schema as the edge validates it', () => {
      const shown = operations.filter((op) => op.examples).map((op) => op.name);
      for (const name of ['propose_space', 'join_space', 'post_message', 'list_event_page', 'list_inbox_events', 'create_task', 'create_resource', 'get_resource']) {
        assert.ok(shown.includes(name), `${name} shows an example`);
      }
      for (const name of ['set_space_pins', 'create_webhook_endpoint', 'create_space_webhook_subscription']) assert.ok(shown.includes(name), `${name} shows an example`);
      const ajv = createAjv(sharedSchemas, { coerceTypes: false });
      const holds = (schema: unknown, example: unknown, what: string) => {
        const validate = ajv.compile(schema as object);
        // The edge fills defaults in what it validates; the declared example stays as shown.
        assert.ok(validate(structuredClone(example)), `${what}: ${ajv.errorsText(validate.errors)}`);
      };
      for (const op of operations.filter((o) => o.examples)) {
        const entry = operationAt(op.method, op.path)! as ContractOperation & {
          requestBody?: { content?: Record<string, { example?: unknown }> };
        };
        const { body, response } = op.examples!;
        if (body !== undefined) {
          assert.ok(op.body, `${op.name} takes no body to show`);
          holds(op.body, body, `${op.name} body example`);
          assert.deepEqual(entry.requestBody?.content?.['application/json']?.example, body, `${op.name} body example in the contract`);
        }
        if (response !== undefined) {
          holds(op.success.schema, response, `${op.name} answer example`);
          const media = (entry.responses[String(op.success.status)]!.content as Record<string, { example?: unknown }>)[op.success.mediaType ?? 'application/json'];
          assert.deepEqual(media?.example, response, `${op.name} answer example in the contract`);
        }
      }
    });

    it('documents an optional body as not required, and treats an empty request as {}', async () => {
      // An edge built over the same context with one extra declaration shows the
      // rule end to end, independently of which operations happen to exist.
      const echo = defineOperation({
        name: 'echo_note',
        who: 'anyone',
        method: 'POST',
        path: '/v0/test-echo',
        tag: 'Discovery',
        description: 'Answers the body it received.',
        summary: 'Echo an optional note',
        auth: { anonymous: true, schemes: [] },
        body: Type.Object({ note: Type.Optional(Type.String({ maxLength: 5 })) }, { additionalProperties: false }),
        success: { status: 200, description: 'The body received.', schema: Type.Object({ received: Type.Unknown() }) },
        errors: [],
        handler: async ({ body }) => ({ received: body }),
      });
      const edge = await buildHttpServer(server.app.ctx, { operations: [...operations, echo], sharedSchemas });
      try {
        await edge.ready();
        const doc = edge.swagger() as unknown as Contract;
        assert.equal(doc.paths['/v0/test-echo']!.post!.requestBody!.required, false);
        assert.equal(doc.paths['/v0/spaces/{slug}/archive']!.post!.requestBody!.required, true);
        const empty = await edge.inject({ method: 'POST', url: '/v0/test-echo' });
        assert.equal(empty.statusCode, 200);
        assert.deepEqual(empty.json(), { received: {} });
        const long = await edge.inject({ method: 'POST', url: '/v0/test-echo', payload: { note: 'too long' } });
        assert.equal(long.statusCode, 422);
      } finally {
        await edge.close();
      }
    });

    it('lists exactly the contract endpoints in discovery (GET /v0)', async () => {
      const res = await server.request('GET', '/v0');
      assert.equal(res.status, 200);
      assert.equal(res.body.protocol, 'atrium/0.1-draft');
      assert.equal(res.body.links.openapi, `${server.url}/v0/openapi.json`);
      const fromContract = Object.entries(contract.paths).flatMap(([path, methods]) =>
        Object.keys(methods)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      );
      assert.deepEqual([...res.body.endpoints].sort(), fromContract.sort());
      assert.equal(new Set(res.body.endpoints).size, res.body.endpoints.length);
      // No repository is configured on this host: a client should not offer repository pins.
      assert.deepEqual(res.body.features, { repository_pins: false });
    });
  });
}
