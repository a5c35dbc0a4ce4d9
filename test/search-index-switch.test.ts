import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { extendBackfill, runBackfill } from '../src/search/backfill.js';
import { CliRunner } from './support/cli.js';
import { backends, freePort, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';

/**
 * ATRIUM_SEARCH_INDEX=off (docs/configuration.md): a node's writes leave the
 * search index alone and its searches answer from what is indexed; a later
 * start with the index on finds what was written meanwhile. The switch is
 * process-wide, so the node with it off is a real `atrium serve` of its own,
 * on the database of a node in this process that keeps it on.
 */

describe('ATRIUM_SEARCH_INDEX', () => {
  it('is on unless set off, and nothing else', () => {
    assert.equal(loadConfig({}).searchIndex, true);
    assert.equal(loadConfig({ ATRIUM_SEARCH_INDEX: 'on' }).searchIndex, true);
    assert.equal(loadConfig({ ATRIUM_SEARCH_INDEX: 'off' }).searchIndex, false);
    assert.throws(() => loadConfig({ ATRIUM_SEARCH_INDEX: 'no' }), /ATRIUM_SEARCH_INDEX must be on or off/);
  });
});

for (const backend of backends()) {
  describe(`a node with the search index off (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let alice: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      await activeSpace(server, alice.session, 'plaza');
      await server.app.searchBackfill.settled();
    });
    after(async () => {
      await cli?.cleanup();
      await server.stop();
    });

    const found = async (url: string, q: string): Promise<string[]> => {
      const res = await fetch(`${url}/v0/search?q=${encodeURIComponent(q)}`, { headers: { authorization: `Bearer ${alice.session}` } });
      assert.equal(res.status, 200);
      return ((await res.json()) as { results: Array<{ kind: string }> }).results.map((r) => r.kind).sort();
    };

    it('writes no documents, answers from what is indexed, and a later start indexes what it wrote', async () => {
      const indexed = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: alice.session, body: { body: 'trellis before the switch' } });
      assert.equal(indexed.status, 201);

      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      cli = new CliRunner(url);
      const { config } = server.app.ctx;
      const databaseUrl = server.database.schema
        ? `${server.database.url}${server.database.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${server.database.schema}`)}`
        : server.database.url;
      const node = cli.spawn(['serve'], {
        ATRIUM_DATABASE_URL: databaseUrl,
        ATRIUM_PORT: String(port),
        ATRIUM_BASE_URL: url,
        ATRIUM_LOG_LEVEL: 'warn',
        ATRIUM_SEARCH_INDEX: 'off',
        // Another node of the same database seals webhook keys under the first one's key.
        ATRIUM_WEBHOOK_SEALING_KEY: config.webhookSealingKey ?? readFileSync(join(config.dataDir, 'webhook-sealing.key'), 'utf8').trim(),
      });
      await node.waitForStdout(/Atrium is listening/);
      const write = async (path: string, body: object) => {
        const res = await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${alice.session}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal(res.status, 201, await res.text());
      };
      await write('/v0/spaces/plaza/channels/general/messages', { body: 'gazebo written while the index is off' });
      await write('/v0/spaces/plaza/tasks', { kind: 'general', title: 'Paint the gazebo' });
      await write('/v0/spaces/plaza/resources', { name: 'Gazebo notes', content: 'The gazebo needs a roof.' });
      assert.deepEqual(await found(url, 'gazebo'), [], 'nothing written with the index off is found');
      assert.deepEqual(await found(url, 'trellis'), ['message'], 'what was indexed before is still found, by the node with the index off too');
      const documents = await server.app.ctx.db.kysely.selectFrom('search_documents').select('record_key').execute();
      assert.equal(documents.length, 1, 'only the message written with the index on has a document');
      node.child.kill('SIGTERM');
      assert.equal((await node.exited).code, 0);

      // What a node's start does with the index on: the walk reaches the records written meanwhile.
      await extendBackfill(server.app.ctx.db);
      await runBackfill(server.app.ctx.db);
      assert.deepEqual(await found(server.url, 'gazebo'), ['message', 'resource', 'task']);
    });
  });
}
