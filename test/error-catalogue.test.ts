import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ERRORS_DOC_PATH, errorsDocument } from '../scripts/generate-errors.js';
import { ERROR_CATALOGUE, isErrorCode } from '../src/shared/error-catalogue.js';
import { GATEWAY_ERROR_STATUS } from '../src/shared/gateway-wire.js';
import { assertError } from './support/errors.js';
import { postForm } from './support/oauth.js';
import { backends, startServer, type TestServer } from './support/server.js';

type Json = Record<string, unknown>;

describe('the error catalogue', () => {
  it('is what docs/errors.md says (npm run generate:errors)', () => {
    assert.equal(readFileSync(ERRORS_DOC_PATH, 'utf8'), errorsDocument(), 'docs/errors.md is stale: run npm run generate:errors');
  });

  it("holds every gateway code with the gateway's status, and only snake_case codes with a meaning", () => {
    for (const [code, status] of Object.entries(GATEWAY_ERROR_STATUS)) {
      assert.ok(isErrorCode(code), code);
      assert.equal(ERROR_CATALOGUE[code].status, status, code);
    }
    for (const [code, { status, meaning }] of Object.entries(ERROR_CATALOGUE)) {
      assert.match(code, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, code);
      assert.ok(status >= 400 && status < 600, code);
      assert.ok(meaning.length > 0 && !meaning.includes('\n'), code);
    }
  });
});

for (const backend of backends()) {
  describe(`Atrium-Error on every error answer (${backend})`, () => {
    let server: TestServer;
    let contract: Json;

    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_ACTIVATION_RATE_LIMIT: '1' } });
      contract = (await server.request('GET', '/v0/openapi.json')).body as Json;
    });
    after(() => server.stop());

    it("declares Atrium-Error on every operation's error responses, each code in the catalogue with that status", () => {
      const shared = (contract.components as Json).responses as Record<string, Json>;
      let declared = 0;
      for (const [path, methods] of Object.entries(contract.paths as Record<string, Record<string, Json>>)) {
        for (const [method, operation] of Object.entries(methods)) {
          const where = `${method.toUpperCase()} ${path}`;
          const statuses = Object.keys(operation.responses as Json).filter((status) => Number(status) >= 400);
          for (const status of [400, 405, 408, 431, 500].map(String)) assert.ok(statuses.includes(status), `${where} declares ${status}`);
          for (const status of statuses) {
            const ref = ((operation.responses as Json)[status] as { $ref: string }).$ref;
            const answer = shared[ref.replace('#/components/responses/', '')]!;
            const header = (answer.headers as Record<string, { required?: boolean; schema: { enum: string[] } }>)['Atrium-Error'];
            assert.ok(header?.required, `${where} ${status} declares Atrium-Error`);
            assert.ok(header.schema.enum.length > 0, `${where} ${status}`);
            for (const code of header.schema.enum) {
              assert.ok(isErrorCode(code), `${where} ${status}: ${code} is in the catalogue`);
              assert.equal(String(ERROR_CATALOGUE[code].status), status, `${where} ${status}: ${code}`);
              declared++;
            }
          }
        }
      }
      assert.ok(declared > 0);
    });

    it('carries a catalogue code on service, validation, routing, rate-limit and OAuth errors', async () => {
      assertError(await server.request('GET', '/v0/spaces/nowhere'), 'space_not_found', 'a service error');
      assertError(await server.request('GET', '/v0/me'), 'credential_required', 'no credential');
      assertError(await server.request('GET', '/v0/me', { token: 'sk_atrium_nothing' }), 'key_invalid', 'an unknown key');
      const alice = await server.human('alice');
      assertError(await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'x', colour: 'red' } }), 'validation_failed', 'a body breaking its schema');
      assertError(
        await server.request('POST', '/v0/spaces', { token: alice.session, rawBody: '{"slug":' }),
        'body_malformed',
        'a body that is not JSON',
      );
      assertError(await server.request('GET', '/v0/nothing-here'), 'route_not_found', 'an unknown route');
      // Not in the contract as a DELETE: the path's operations declare the 405.
      const wrongMethod = await server.request('DELETE', '/v0/spaces', { unchecked: true });
      assertError(wrongMethod, 'method_not_allowed', 'a known path asked with another method');
      assert.ok(wrongMethod.headers.get('allow'));
      assert.equal((await server.request('POST', '/v0/client-activations', { body: { client_name: 'first' } })).status, 201);
      const limited = await server.request('POST', '/v0/client-activations', { body: { client_name: 'second' } });
      assertError(limited, 'rate_limited', 'a rate limit');
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      const oauth = await postForm(server, '/oauth/token', { grant_type: 'password' });
      assert.equal(oauth.status, 400);
      assert.equal(oauth.headers.get('atrium-error'), 'oauth_unsupported_grant_type');
      assert.equal(oauth.body.error, 'unsupported_grant_type', 'the body stays as RFC 6749 has it');
    });
  });
}
