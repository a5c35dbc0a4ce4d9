import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from './support/errors.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

const RACERS = 24;

/**
 * Concurrent updates of one Resource over real HTTP (docs/resources.md): with
 * the same `expected_version` exactly one commits; without it every update
 * commits with its own version number; equal bytes written at once still make
 * one blob.
 */
for (const backend of backends()) {
  describe(`resource update races (${backend})`, () => {
    let server: TestServer;
    let tokens: string[];

    const create = async (name: string, content: string) => {
      const res = await server.request('POST', '/v0/spaces/forge/resources', { token: tokens[0]!, body: { name, content } });
      assert.equal(res.status, 201, res.body?.detail);
      return res.body.id as string;
    };
    const addVersion = (id: string, i: number, body: Record<string, unknown>) =>
      server.request('POST', `/v0/spaces/forge/resources/${id}/versions`, { token: tokens[i % tokens.length]!, body });
    const count = async (table: 'resource_versions' | 'blobs' | 'events', where?: [string, string]) => {
      let query = server.app.ctx.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
      if (where) query = query.where(where[0] as never, '=', where[1] as never);
      return Number((await query.executeTakeFirstOrThrow()).n);
    };
    const versionsOf = async (id: string) =>
      (
        await server.app.ctx.db.kysely
          .selectFrom('resource_versions')
          .select(['version', 'name', 'created_by'])
          .where('resource_id', '=', id)
          .orderBy('version')
          .execute()
      ).map((v) => ({ ...v, version: Number(v.version) }));

    before(async () => {
      server = await startServer(backend);
      const owner = await server.human('olga', { role: 'owner' });
      tokens = [];
      for (const handle of ['ada', 'bob', 'carol', 'dave']) tokens.push((await server.human(handle)).session);
      assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'forge', name: 'Forge' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/forge/approve', { token: STEWARD_KEY })).status, 200);
    });
    after(() => server.stop());

    it('lets exactly one of many updates with the same expected_version commit; the others get 409 and write nothing', async () => {
      const id = await create('Contended', 'v1');
      const eventsBefore = await count('events', ['type', 'resource_version_added']);
      const results = await Promise.all(
        Array.from({ length: RACERS }, (_, i) => addVersion(id, i, { content: `racer ${i}`, name: `Racer ${i}`, expected_version: 1 })),
      );
      const winners = results.flatMap((r, i) => (r.status === 201 ? [i] : []));
      assert.equal(winners.length, 1, `statuses: ${results.map((r) => r.status).join(',')}`);
      const losers = results.filter((r) => r.status !== 201);
      for (const loser of losers) assertError(loser, 'version_conflict');
      const winner = winners[0]!;
      const read = await server.request('GET', `/v0/spaces/forge/resources/${id}`);
      assert.deepEqual([read.body.current_version, read.body.name, read.body.content], [2, `Racer ${winner}`, `racer ${winner}`]);
      assert.deepEqual(
        (await versionsOf(id)).map((v) => v.version),
        [1, 2],
      );
      assert.equal(await count('events', ['type', 'resource_version_added']), eventsBefore + 1);
      // The winner's content is stored; no loser left a blob behind.
      assert.equal(await count('blobs'), 2);
    });

    it('gives every concurrent update without expected_version its own version, with no gaps', async () => {
      const id = await create('Append only', 'v1');
      const results = await Promise.all(Array.from({ length: RACERS }, (_, i) => addVersion(id, i, { content: `append ${i}` })));
      assert.deepEqual(
        results.map((r) => r.status),
        Array(RACERS).fill(201),
      );
      const numbers = results.map((r) => r.body.current_version as number).sort((a, b) => a - b);
      assert.deepEqual(
        numbers,
        Array.from({ length: RACERS }, (_, i) => i + 2),
      );
      assert.deepEqual(
        (await versionsOf(id)).map((v) => v.version),
        Array.from({ length: RACERS + 1 }, (_, i) => i + 1),
      );
      const read = await server.request('GET', `/v0/spaces/forge/resources/${id}`);
      assert.equal(read.body.current_version, RACERS + 1);
      // Each version holds the text its own request sent.
      for (const r of results) {
        const version = await server.request('GET', `/v0/spaces/forge/resources/${id}/versions/${r.body.current_version}`);
        assert.equal(version.body.digest, r.body.digest);
      }
    });

    it('stores equal bytes written concurrently to many Resources as one blob', async () => {
      const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => create(`Twin ${i}`, 'seed')));
      const blobsBefore = await count('blobs');
      const text = `# Same text, written at once ${backend}\n`;
      const results = await Promise.all(Array.from({ length: RACERS }, (_, i) => addVersion(ids[i % ids.length]!, i, { content: text })));
      assert.deepEqual(
        results.map((r) => r.status),
        Array(RACERS).fill(201),
      );
      assert.equal(await count('blobs'), blobsBefore + 1);
      const versions = await Promise.all(ids.map((id) => versionsOf(id)));
      assert.equal(versions.flat().length, ids.length + RACERS);
    });
  });
}
