import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/**
 * Input that used to reach the databases or the stack unchecked (docs/http.md):
 * deep JSON, integers beyond what the databases hold, integers written in other
 * notations, bodies in another charset; and the answers HTTP itself defines for
 * a missing credential (401 with a challenge) and a wrong method (405 with Allow).
 */
for (const backend of backends()) {
  describe(`HTTP input limits (${backend})`, () => {
    let server: TestServer;
    let ada: { handle: string; session: string };
    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada');
      await activeSpace(server, ada.session, 'plaza');
    });
    after(() => server.stop());

    it('refuses JSON nested deeper than 64 levels with 422, and keeps serving', async () => {
      for (const depth of [65, 3400, 100_000]) {
        const deep = '['.repeat(depth) + ']'.repeat(depth);
        const res = await server.request('POST', '/v0/spaces', { token: ada.session, rawBody: `{"slug":"deep","name":${deep}}` });
        assertError(res, 'body_malformed', `depth ${depth}`);
        // The detail names the limit broken.
        assert.match(res.body.detail, /nests deeper than 64 levels/);
      }
      // Brackets inside strings are text, not nesting.
      const bracketed = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', {
        token: ada.session,
        body: { body: '['.repeat(500) + ' hello' },
      });
      assert.equal(bracketed.status, 201);
    });

    it('refuses integers beyond what both databases hold with 422, not a database error', async () => {
      for (const before of ['9223372036854775807', '9007199254740992', '99999999999999999999']) {
        const res = await server.request('GET', `/v0/spaces/plaza/channels/general/messages?before=${before}`);
        assertError(res, 'validation_failed', before);
        assert.match(res.body.detail, /querystring\.before/);
      }
      assert.equal((await server.request('GET', '/v0/spaces/plaza/events?since=9223372036854775807')).status, 422);
      assert.equal((await server.request('GET', `/v0/spaces/plaza/channels/general/messages?before=${Number.MAX_SAFE_INTEGER}`)).status, 200);
    });

    it('takes integers in URLs only as decimal digits', async () => {
      for (const value of ['0x10', '1e3', '1e20', '%20', '', '+5', '1.0', '0b1', 'Infinity']) {
        const res = await server.request('GET', `/v0/spaces/plaza/events?since=${value}`, { unchecked: true });
        assertError(res, 'validation_failed', JSON.stringify(value));
        assert.equal(res.body.detail, 'querystring.since must be an integer written in decimal digits');
      }
      const path = await server.request('GET', '/v0/spaces/plaza/tasks/0x1', { token: ada.session });
      assertError(path, 'validation_failed');
      assert.equal(path.body.detail, 'params.id must be an integer written in decimal digits');
      assert.equal((await server.request('GET', '/v0/spaces/plaza/events?since=0')).status, 200);
      assert.equal((await server.request('GET', '/v0/spaces/plaza/events?since=-1')).status, 422, 'decimal, but below the minimum');
    });

    it('refuses a JSON body declared in a charset other than UTF-8 with 415', async () => {
      const body = JSON.stringify({ body: 'caf\u00e9' });
      for (const contentType of ['application/json; charset=latin1', 'application/json; charset="ISO-8859-1"', 'application/json;charset=utf-16']) {
        const res = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', {
          token: ada.session,
          rawBody: body,
          headers: { 'content-type': contentType },
        });
        assertError(res, 'unsupported_media_type', contentType);
      }
      for (const contentType of ['application/json; charset=UTF-8', 'application/json; charset="utf-8"']) {
        const res = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', {
          token: ada.session,
          rawBody: body,
          headers: { 'content-type': contentType },
        });
        assert.equal(res.status, 201, contentType);
        assert.equal(res.body.body, 'caf\u00e9');
      }
    });

    it('compresses responses when the client asks, and only then', async () => {
      const get = (headers: Record<string, string>) =>
        new Promise<{ encoding: string | undefined; bytes: number; text: string }>((resolve, reject) => {
          request(`${server.url}/v0/openapi.json`, { headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const raw = Buffer.concat(chunks);
              const encoding = res.headers['content-encoding'];
              resolve({ encoding, bytes: raw.length, text: encoding === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8') });
            });
          })
            .on('error', reject)
            .end();
        });
      const plain = await get({});
      const gzipped = await get({ 'accept-encoding': 'gzip' });
      assert.equal(plain.encoding, undefined);
      assert.equal(gzipped.encoding, 'gzip');
      assert.ok(gzipped.bytes * 4 < plain.bytes, `${gzipped.bytes} gzipped vs ${plain.bytes} raw`);
      assert.equal(gzipped.text, plain.text);
    });

    it('answers 401 with a Bearer challenge', async () => {
      const missing = await server.request('GET', '/v0/me');
      assert.equal(missing.status, 401);
      const metadata = `resource_metadata="${server.url}/.well-known/oauth-protected-resource/v0"`;
      assert.equal(missing.headers.get('www-authenticate'), `Bearer realm="atrium", ${metadata}, scope="read write"`);
      const wrong = await server.request('GET', '/v0/me', { token: 'sk_atrium_nonsense' });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.headers.get('www-authenticate'), `Bearer realm="atrium", ${metadata}, error="invalid_token", scope="read write"`);
    });

    it('answers a known path asked with the wrong method 405 with Allow, and an unknown path 404', async () => {
      const wrong = await server.request('DELETE', '/v0/spaces', { unchecked: true });
      assertError(wrong, 'method_not_allowed');
      assert.equal(wrong.headers.get('allow'), 'GET, HEAD, POST');
      const param = await server.request('PUT', '/v0/spaces/plaza/channels/general/messages', { unchecked: true });
      assert.equal(param.status, 405);
      assert.equal(param.headers.get('allow'), 'GET, HEAD, POST');
      const unknown = await server.request('DELETE', '/v0/nowhere', { unchecked: true });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.headers.get('allow'), null);
    });

    it('answers the API index asked with another method 405 with Allow, TRACE and OPTIONS included', async () => {
      // fetch refuses to send TRACE, so the request goes out raw.
      const ask = (method: string) =>
        new Promise<{ status: number | undefined; allow: string | undefined; code: unknown; body: string }>((resolve, reject) => {
          request(`${server.url}/v0`, { method }, (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (c: string) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode, allow: res.headers.allow, code: res.headers['atrium-error'], body }));
          })
            .on('error', reject)
            .end();
        });
      for (const method of ['PUT', 'TRACE', 'OPTIONS', 'POST', 'DELETE', 'PATCH']) {
        const res = await ask(method);
        assert.equal(res.status, 405, method);
        assert.equal(res.allow, 'GET, HEAD', method);
        assert.equal(res.code, 'method_not_allowed', method);
        assert.deepEqual(Object.keys(JSON.parse(res.body)), ['detail'], method);
      }
    });
  });
}
