import assert from 'node:assert/strict';
import { copyFileSync, renameSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from './support/server.js';

/**
 * A node whose SQLite database file was replaced under it (docs/operations.md,
 * "Lost storage") reports not ready and takes no writes, from the HTTP edge
 * down to its own units of work; reads still answer. `test/serve.test.ts`
 * removes the whole data directory under `atrium serve`.
 */
describe('storage replaced under a running node (sqlite)', () => {
  let server: TestServer;
  let ada: { handle: string; session: string };
  let file: string;

  before(async () => {
    server = await startServer('sqlite');
    ada = await server.human('ada');
    file = server.database.url.slice('sqlite:'.length);
  });
  after(async () => server.stop());

  it('is ready and takes writes while its files are the ones it started with', async () => {
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    const proposed = await server.request('POST', '/v0/spaces', { token: ada.session, body: { slug: 'before', name: 'Before', join_policy: 'open' } });
    assert.equal(proposed.status, 201, proposed.body?.detail);
  });

  it('reports not ready and refuses writes with 503 once the database file is another file, and says why', async () => {
    // What a restore by copying over a live file does: same path, another inode.
    copyFileSync(file, `${file}.copy`);
    renameSync(`${file}.copy`, file);

    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal(ready.headers.get('atrium-error'), 'node_unavailable');
    const detail = `the database file ${file} was replaced while this node ran; this node takes no writes until it is restarted`;
    assert.deepEqual(await ready.json(), { detail });

    const refused = await server.request('POST', '/v0/spaces', { token: ada.session, body: { slug: 'after', name: 'After', join_policy: 'open' } });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('atrium-error'), 'node_unavailable');
    assert.deepEqual(refused.body, { detail });

    // Below the edge too: a worker's unit of work is refused before it begins.
    await assert.rejects(
      server.app.ctx.db.transaction(async () => assert.fail('the unit ran')),
      (err: { code?: string; detail?: string }) => err.code === 'node_unavailable' && err.detail === detail,
    );

    const read = await server.request('GET', '/v0/spaces/before', { token: ada.session });
    assert.equal(read.status, 200, 'reads still answer');
  });
});
