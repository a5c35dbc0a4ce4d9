import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from './support/errors.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, type Person, type TestServer } from './support/server.js';

/**
 * The typed client every test server offers (`server.api`, `server.as(token)`):
 * its answers are checked against the served contract as `server.request`'s
 * are, so a test that moves to typed calls keeps that check.
 */
for (const backend of backends()) {
  describe(`the test server's typed client (${backend})`, () => {
    let server: TestServer;
    let ada: Person;

    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada');
      await activeSpace(server, ada.session, 'typed');
    });
    after(() => server?.stop());

    it('hands every answer to the contract checker, refusals included, and fails the call the checker fails', async () => {
      const check = server.contract.check.bind(server.contract);
      const seen: unknown[] = [];
      server.contract.check = (method, path, status, body) => {
        seen.push([method, path, status, body]);
        check(method, path, status, body);
      };
      try {
        const { data, response } = await server.as(ada.session).GET('/v0/spaces/{slug}', { params: { path: { slug: 'typed' } } });
        assert.equal(response.status, 200);
        assert.equal(data?.slug, 'typed');
        const refused = await server.api.GET('/v0/spaces/{slug}', { params: { path: { slug: 'nowhere' } } });
        assertError(refused, 'space_not_found');
        assert.deepEqual(seen, [
          ['GET', '/v0/spaces/typed', 200, data],
          ['GET', '/v0/spaces/nowhere', 404, refused.error],
        ]);

        server.contract.check = () => {
          throw new Error('not as the contract documents it');
        };
        await assert.rejects(server.api.GET('/v0/spaces/{slug}', { params: { path: { slug: 'typed' } } }), /not as the contract documents it/);
      } finally {
        server.contract.check = check;
      }
    });

    it('sends the query and headers it is given, and reads an answer without a body (304)', async () => {
      const feed = (headers: Record<string, string> = {}) =>
        server.api.GET('/v0/spaces/{slug}/events', { params: { path: { slug: 'typed' }, query: { since: 0, limit: 1 } }, headers });
      const first = await feed();
      assert.equal(first.response.status, 200);
      assert.deepEqual(first.data?.events.map((e) => e.type), ['space_proposed']);
      const etag = first.response.headers.get('etag');
      assert.ok(etag);
      const unchanged = await feed({ 'if-none-match': etag });
      assert.equal(unchanged.response.status, 304);
      assert.equal(unchanged.data, undefined);
    });
  });
}
