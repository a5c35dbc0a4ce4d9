import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rowCounts } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/** protocol: Errors. Every error body is `{detail}` and nothing else. */
function assertDetailOnly(body: unknown, label: string): string {
  assert.equal(typeof body, 'object', label);
  assert.deepEqual(Object.keys(body as object), ['detail'], `${label}: ${JSON.stringify(body)}`);
  const detail = (body as { detail: unknown }).detail;
  assert.equal(typeof detail, 'string', label);
  assert.ok((detail as string).length > 0, label);
  return detail as string;
}

for (const backend of backends()) {
  describe(`Errors (${backend})`, () => {
    let server: TestServer;
    let alice: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      const res = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'garden', name: 'Garden' } });
      assert.equal(res.status, 201);
    });
    after(() => server.stop());

    it('answers an unknown route with 404 {detail}, and a known path asked with the wrong method 405', async () => {
      for (const [method, path] of [
        ['GET', '/v0/nothing-here'],
        ['GET', '/v1/spaces'],
        ['POST', '/v0/spaces/garden/explode'],
      ] as const) {
        const res = await server.request(method, path);
        assertError(res, 'route_not_found', `${method} ${path}`);
        assertDetailOnly(res.body, path);
      }
      // Not in the contract: the contract lists what each path takes.
      const wrongMethod = await server.request('DELETE', '/v0/spaces/garden', { unchecked: true });
      assertError(wrongMethod, 'method_not_allowed');
      assert.equal(wrongMethod.headers.get('allow'), 'GET, HEAD');
      assertDetailOnly(wrongMethod.body, 'DELETE');
    });

    it('answers malformed JSON with 422 and writes nothing', async () => {
      const before = await rowCounts(server);
      for (const rawBody of ['{', '{"slug": "x", }', "{'slug': 'x'}", 'slug=x', '{"slug":"x"} trailing']) {
        const res = await server.request('POST', '/v0/spaces', { token: alice.session, rawBody });
        assertError(res, 'body_malformed', rawBody);
        assertDetailOnly(res.body, rawBody);
      }
      // Prototype poisoning is refused as invalid input, not merged.
      const poisoned = await server.request('POST', '/v0/spaces', {
        token: alice.session,
        rawBody: '{"slug":"poison","name":"Poison","__proto__":{"status":"active"}}',
      });
      assert.equal(poisoned.status, 422);
      assertDetailOnly(poisoned.body, 'poisoned');
      assert.deepEqual(await rowCounts(server), before);
    });

    it('answers a body that is not JSON with 415 {detail}', async () => {
      const before = await rowCounts(server);
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
        const res = await server.request('POST', '/v0/spaces', {
          token: alice.session,
          rawBody: JSON.stringify({ slug: 'sneaky', name: 'Sneaky' }),
          headers: { 'content-type': contentType },
        });
        assertError(res, 'unsupported_media_type', contentType);
        assertDetailOnly(res.body, contentType);
      }
      // Also on an operation that takes no body.
      const approve = await server.request('POST', '/v0/spaces/garden/approve', {
        token: STEWARD_KEY,
        rawBody: 'please',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(approve.status, 415);
      assert.deepEqual(await rowCounts(server), before);
      assert.equal((await server.request('GET', '/v0/spaces/garden')).body.status, 'proposed');
    });

    it('accepts JSON with a charset parameter', async () => {
      const res = await server.request('POST', '/v0/spaces', {
        token: alice.session,
        rawBody: JSON.stringify({ slug: 'charset', name: 'Charset' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      assert.equal(res.status, 201);
    });

    it('answers a body over the 2 MiB limit with 413 {detail}', async () => {
      const before = await rowCounts(server);
      const big = JSON.stringify({ slug: 'huge', name: 'Huge', charter: 'x'.repeat(2 * 1024 * 1024) });
      const res = await server.request('POST', '/v0/spaces', { token: alice.session, rawBody: big });
      assertError(res, 'body_too_large');
      // The detail names the limit broken.
      assert.match(assertDetailOnly(res.body, '413'), /2 MiB/);
      assert.deepEqual(await rowCounts(server), before);
      // Just under the limit, the body is read and validated (the charter is too long): 422.
      const under = JSON.stringify({ slug: 'big', name: 'Big', charter: 'x'.repeat(2 * 1024 * 1024 - 100) });
      assert.equal((await server.request('POST', '/v0/spaces', { token: alice.session, rawBody: under })).status, 422);
    });

    it('settles who is calling before reading the body', async () => {
      // No credential and a bad body: the missing credential is what the caller must fix first.
      const res = await server.request('POST', '/v0/spaces', { rawBody: '{' });
      assert.equal(res.status, 401);
      assertDetailOnly(res.body, 'anonymous malformed');
      assert.equal((await server.request('POST', '/v0/spaces/garden/approve', { token: alice.session, body: { x: 1 } })).status, 403);
    });

    it('answers credential problems with 401/403 {detail}, even where anonymous reads are allowed', async () => {
      const cases: Array<[string, Record<string, string>, number]> = [
        ['malformed Authorization', { authorization: 'Basic YWxpY2U6cHc=' }, 401],
        ['unknown member key', { authorization: 'Bearer sk_atrium_000000' }, 401],
        ['unknown session', { authorization: 'Bearer st_atrium_000000' }, 401],
      ];
      for (const [label, headers, status] of cases) {
        // The feed is open to anonymous readers yet reads a credential when one comes (members see more).
        const res = await server.request('GET', '/v0/spaces/garden/events', { headers });
        assert.equal(res.status, status, label);
        assertDetailOnly(res.body, label);
        // A public operation reads no credential at all: the same header changes nothing there.
        assert.equal((await server.request('GET', '/v0/spaces/garden', { headers })).status, 200, label);
      }
      // A stale cookie counts as absent where anonymous calls are accepted
      // (docs/decisions-local.md), and is refused where a credential is needed.
      const cookie = { cookie: 'atrium_session=garbage' };
      assert.equal((await server.request('GET', '/v0/spaces/garden/events', { headers: cookie })).status, 200);
      const stale = await server.request('GET', '/v0/events', { headers: cookie });
      assert.equal(stale.status, 401);
      assertDetailOnly(stale.body, 'stale cookie');
    });

    it('answers an undecodable path with 422 {detail}', async () => {
      const res = await server.request('GET', '/v0/spaces/%E0%A4%A');
      assert.equal(res.status, 422);
      assertDetailOnly(res.body, 'bad url');
    });

    it('keeps every error body to {detail}, with no stack or SQL', async () => {
      const probes: Array<[string, string, Record<string, unknown>]> = [
        ['GET', '/v0/spaces/nope', {}],
        ['GET', '/v0/spaces?status=nope', {}],
        ['POST', '/v0/spaces', { body: { slug: 'x' } }],
        ['POST', '/v0/spaces', { token: alice.session, body: { slug: 'garden', name: 'Garden' } }],
        ['POST', '/v0/spaces/garden/restore', { token: STEWARD_KEY }],
        ['GET', '/v0/events', { token: 'wrong' }],
        ['GET', '/v0/spaces/garden/events?since=999999', {}],
      ];
      for (const [method, path, opts] of probes) {
        const res = await server.request(method, path, opts);
        assert.ok(res.status >= 400 && res.status < 500, `${method} ${path}: ${res.status}`);
        const detail = assertDetailOnly(res.body, `${method} ${path}`);
        assert.doesNotMatch(detail, /\bselect\b|\binsert\b|sqlite|postgres|relation|at .*\.ts:\d+/i, detail);
      }
    });
  });

  describe(`Internal errors (${backend})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(backend);
    });
    after(() => server.stop());

    it('answers 500 {detail: "internal server error"} and leaks nothing', async () => {
      const owner = await server.human('olivia', { role: 'owner' });
      const res = await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'broken', name: 'Broken' } });
      assert.equal(res.status, 201);
      // Break the storage under the running server.
      await server.app.ctx.db.kysely.schema.dropTable('space_memberships').execute();

      const broken = await server.request('GET', '/v0/spaces/broken/members');
      assert.equal(broken.status, 500);
      assert.deepEqual(broken.body, { detail: 'internal server error' });
      assert.doesNotMatch(JSON.stringify(broken.body), /space_memberships|relation|no such table|SQL/i);
      const write = await server.request('POST', '/v0/spaces/broken/join', { token: owner.session });
      assert.equal(write.status, 500);
      assert.deepEqual(write.body, { detail: 'internal server error' });
      // The rest of the host still answers.
      assert.equal((await server.request('GET', '/v0/spaces/broken')).status, 200);
    });

    it('rolls back the state change when its event cannot be appended', async () => {
      const owner = await server.human('oscar', { role: 'owner' });
      const db = server.app.ctx.db.kysely;
      const count = async (table: 'spaces' | 'events') =>
        Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const before = { spaces: await count('spaces'), events: await count('events') };
      // Appending is the transaction's last step: without the table it writes (SQLite:
      // an event's subjects, after the event row; PostgreSQL: the sequencer's queue)
      // it fails after the Space row was written.
      await server.app.ctx.db.kysely.schema.dropTable(backend === 'postgres' ? 'pending_events' : 'event_subjects').execute();
      const res = await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'orphan', name: 'Orphan' } });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { detail: 'internal server error' });
      assert.equal((await server.request('GET', '/v0/spaces/orphan')).status, 404);
      assert.equal(await count('spaces'), before.spaces);
      assert.equal(await count('events'), before.events);
    });
  });
}

for (const backend of backends()) {
  describe(`Unstorable text (${backend})`, () => {
    let server: TestServer;
    let owner: { handle: string; session: string };
    before(async () => {
      server = await startServer(backend);
      owner = await server.human('nul-owner', { role: 'owner' });
    });
    after(() => server.stop());

    it('refuses NUL and unpaired surrogates in any JSON string, before anything is written', async () => {
      const bodies = [
        '{"slug":"nul-space","name":"Nul","charter":"a\\u0000b"}',
        '{"slug":"nul-space","name":"Nul","purpose":"\\ud800"}',
        '{"slug":"nul-space","name":"Nul\\udfff"}',
      ];
      for (const rawBody of bodies) {
        const res = await server.request('POST', '/v0/spaces', { token: owner.session, rawBody });
        assertError(res, 'validation_failed', rawBody);
      }
      assert.equal((await server.request('GET', '/v0/spaces/nul-space')).status, 404);
      const paired = await server.request('POST', '/v0/spaces', {
        token: owner.session,
        rawBody: '{"slug":"emoji-space","name":"Emoji \\ud83c\\udf31"}',
      });
      assert.equal(paired.status, 201, 'a correctly paired surrogate is just an astral character');
      assert.equal(paired.body.name, 'Emoji 🌱');
    });

    it('answers long path values by their schema (a documented 422), not with an undocumented 414', async () => {
      const long = 'a'.repeat(150);
      for (const [method, path] of [['GET', `/v0/spaces/${long}`], ['POST', `/v0/spaces/${long}/approve`]] as const) {
        const res = await server.request(method, path, { token: STEWARD_KEY });
        assertError(res, 'validation_failed', path);
        assert.equal(res.body.detail, 'params.slug must NOT have more than 64 characters');
      }
    });

    it('refuses an encoded NUL in the URL', async () => {
      const res = await server.request('GET', '/v0/spaces/a%00b', { unchecked: true });
      assert.equal(res.status, 422);
      assert.deepEqual(Object.keys(res.body), ['detail']);
    });
  });
}
