import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { createHuman } from '../src/members/service.js';
import { startServer, type TestServer } from './support/server.js';

/**
 * Another process on the same SQLite file (`atrium admin janitor`, a backup)
 * may hold the write lock while the host serves (docs/operations.md, "Another
 * process on the database"). A write then waits out the busy timeout
 * (ATRIUM_SQLITE_BUSY_TIMEOUT_MS, short here), asks again, and if the lock is
 * still held answers 503 `host_busy` with Retry-After: never a 500. A second
 * connection to the file plays the other process. SQLite only: PostgreSQL
 * writers wait for row locks, not for the file.
 */
describe('a write while another process holds the SQLite write lock (sqlite)', () => {
  let server: TestServer;
  let other: BetterSqlite3.Database;
  let ada: { handle: string; session: string };

  before(async () => {
    server = await startServer('sqlite', { env: { ATRIUM_SQLITE_BUSY_TIMEOUT_MS: '20' } });
    ada = await server.human('ada');
    other = new BetterSqlite3(server.database.url.slice('sqlite:'.length));
    other.pragma('busy_timeout = 0');
  });
  after(async () => {
    if (other.inTransaction) other.exec('rollback');
    other.close();
    await server.stop();
  });

  const propose = (slug: string) => server.request('POST', '/v0/spaces', { token: ada.session, body: { slug, name: 'Busy', join_policy: 'open' } });

  it('answers 503 host_busy with Retry-After while the lock is held, and the same write succeeds once it is released', async () => {
    other.exec('begin immediate');
    const refused = await propose('busy');
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.headers.get('atrium-error'), 'host_busy');
    assert.equal(refused.headers.get('retry-after'), '1');
    other.exec('commit');

    const retried = await propose('busy');
    assert.equal(retried.status, 201, retried.body?.detail);
    assert.equal((await server.request('GET', '/v0/spaces/busy', { token: ada.session })).status, 200);
  });

  it('takes the write lock when a unit of work begins, so another process committing after the unit first read cannot fail it', async () => {
    // Deferred, the unit would take the lock at its first write: the other
    // process commits in between, and SQLite answers SQLITE_BUSY at once.
    const othersWrite = () => {
      try {
        other.prepare("update members set display_name = 'Ada' where handle = 'ada'").run();
        return 'written';
      } catch (err) {
        return (err as { code?: string }).code;
      }
    };
    let meanwhile: string | undefined;
    await server.app.ctx.db.transaction(async (tx) => {
      await tx.db.selectFrom('members').select('handle').where('handle', '=', 'ada').executeTakeFirstOrThrow();
      meanwhile = othersWrite();
      await createHuman(tx, { system: 'admin_cli' }, { handle: 'grace', email: 'grace@example.test' });
    });
    assert.equal(meanwhile, 'SQLITE_BUSY', 'the other process waits for the unit, not the unit for it');
    assert.equal(othersWrite(), 'written', 'and writes once the unit committed');
    assert.equal((await server.request('GET', '/v0/members/grace', { token: ada.session })).status, 200);
  });
});
