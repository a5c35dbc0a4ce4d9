import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CliRunner } from './support/cli.js';
import { freePort } from './support/server.js';

/**
 * `atrium serve` as a first-time user runs it: an embedded SQLite database in
 * ./data, the URL and the create-owner hint printed, the owner created with the
 * admin command while the server runs, and a clean exit on SIGTERM.
 */
describe('atrium serve (sqlite)', () => {
  let cli: CliRunner;
  let port: number;
  before(async () => {
    port = await freePort();
    cli = new CliRunner(`http://127.0.0.1:${port}`);
  });
  after(() => cli.cleanup());

  const env = () => ({ ATRIUM_PORT: String(port), ATRIUM_LOG_LEVEL: 'warn' });

  it('starts, tells how to create the first owner, and shuts down gracefully', async () => {
    const server = cli.spawn(['serve'], env());
    const [, url] = await server.waitForStdout(/Atrium is listening on (\S+) \(database sqlite:\/\S+\/data\/atrium\.db\)/);
    assert.equal(url, `http://localhost:${port}`);
    await server.waitForStdout(/No owner yet[\s\S]*atrium admin create-owner --handle <handle> --email <address>/);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });

    const created = await cli.run(['admin', 'create-owner', '--handle', 'ada', '--email', 'ada@example.org'], env());
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /ada is an owner/);
    assert.match(created.stderr, /^Database: sqlite:\/\S+\/data\/atrium\.db$/m, 'it says which database it used');
    const member = await fetch(`http://127.0.0.1:${port}/v0/members/ada`);
    assert.equal(member.status, 200, 'the running server sees the owner the admin command wrote');

    server.child.kill('SIGTERM');
    const ended = await server.exited;
    assert.equal(ended.code, 0, ended.stderr);
  });

  it('migrates an existing database and restarts without the first-owner hint', async () => {
    const migrated = await cli.run(['migrate'], env());
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /^Database sqlite:\/\S+\/data\/atrium\.db is up to date\.$/m);

    const server = cli.spawn(['serve'], env());
    await server.waitForStdout(/Atrium is listening/);
    const spaces = await fetch(`http://127.0.0.1:${port}/v0/spaces`);
    assert.equal(spaces.status, 200);
    server.child.kill('SIGINT');
    const ended = await server.exited;
    assert.equal(ended.code, 0, ended.stderr);
    assert.doesNotMatch(ended.stdout, /No owner yet/);
  });

  it('keeps its files in ATRIUM_DATA_DIR, and admin commands print where the server listens', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atrium-data-'));
    try {
      const server = cli.spawn(['serve'], { ...env(), ATRIUM_DATA_DIR: dataDir });
      await server.waitForStdout(new RegExp(`Atrium is listening on \\S+ \\(database sqlite:${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/atrium\\.db\\)`));
      // Run from another shell that knows only the data directory, not the port.
      const created = await cli.run(['admin', 'create-owner', '--handle', 'bea', '--email', 'bea@example.org'], { ATRIUM_DATA_DIR: dataDir, ATRIUM_LOG_LEVEL: 'warn' });
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, new RegExp(`Sign in with bea@example.org at http://localhost:${port}\\.`));
      server.child.kill('SIGTERM');
      assert.equal((await server.exited).code, 0);
      for (const file of ['atrium.db', 'server.json']) assert.ok(existsSync(join(dataDir, file)), file);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to make a new database for an admin command run away from the server, unless asked with --create', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'atrium-elsewhere-'));
    try {
      const owner = ['admin', 'create-owner', '--handle', 'cyd', '--email', 'cyd@example.org'];
      const refused = await cli.run(owner, { ATRIUM_DATA_DIR: elsewhere, ATRIUM_LOG_LEVEL: 'warn' });
      assert.equal(refused.code, 1, refused.stdout);
      assert.equal(
        refused.stderr.trim(),
        `atrium: no Atrium database at sqlite:${elsewhere}/atrium.db. Admin commands work on the server's database: run this in the server's directory, ` +
          'or set ATRIUM_DATA_DIR or ATRIUM_DATABASE_URL as the server has them. To set up a new database there, add --create.',
      );
      assert.ok(!existsSync(join(elsewhere, 'atrium.db')), 'nothing was created');
      const rotate = await cli.run(['webhooks', 'rotate-key'], { ATRIUM_DATA_DIR: elsewhere, ATRIUM_LOG_LEVEL: 'warn' });
      assert.equal(rotate.code, 1);
      assert.match(rotate.stderr, /^atrium: no Atrium database at /);

      const created = await cli.run([...owner, '--create'], { ATRIUM_DATA_DIR: elsewhere, ATRIUM_LOG_LEVEL: 'warn' });
      assert.equal(created.code, 0, created.stderr);
      assert.equal(created.stderr, `Database: sqlite:${elsewhere}/atrium.db\n`);
      assert.match(created.stdout, /cyd is an owner/);
      const again = await cli.run(['admin', 'create-owner', '--handle', 'cyd', '--email', 'cyd@example.org'], { ATRIUM_DATA_DIR: elsewhere, ATRIUM_LOG_LEVEL: 'warn' });
      assert.equal(again.code, 0, 'an existing database needs no --create');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('migrate --check says what is pending and whether it is safe while old nodes serve, changing nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atrium-data-'));
    const env = { ATRIUM_DATA_DIR: dataDir, ATRIUM_LOG_LEVEL: 'warn' };
    try {
      const none = await cli.run(['migrate', '--check'], env);
      assert.equal(none.code, 0, none.stderr);
      assert.equal(none.stdout, `No Atrium database at sqlite:${dataDir}/atrium.db yet: the first start (or atrium migrate) sets one up.\n`);
      assert.ok(!existsSync(join(dataDir, 'atrium.db')), 'nothing was created');

      assert.equal((await cli.run(['migrate'], env)).code, 0);
      const current = await cli.run(['migrate', '--check'], env);
      assert.equal(current.stdout, `Database sqlite:${dataDir}/atrium.db is up to date.\n`);

      // As a database of the previous release stands: its newest migration not yet run.
      const db = new BetterSqlite3(join(dataDir, 'atrium.db'));
      const newest = (db.prepare('select max(name) as name from kysely_migration').get() as { name: string }).name;
      db.prepare('delete from kysely_migration where name = ?').run(newest);
      db.close();
      const pending = await cli.run(['migrate', '--check'], env);
      assert.equal(pending.code, 0, pending.stderr);
      assert.match(pending.stdout, new RegExp(`^Database sqlite:\\S+: 1 migration pending:\\n  ${newest}  expand: safe while nodes of the previous release serve\\nSafe while nodes of the previous release serve: start a node of this release`));
      const still = new BetterSqlite3(join(dataDir, 'atrium.db'), { readonly: true });
      assert.equal((still.prepare('select count(*) as n from kysely_migration where name = ?').get(newest) as { n: number }).n, 0, '--check ran nothing');
      still.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('reports not ready, refuses writes and says why in its log once its data directory is deleted under it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atrium-data-'));
    try {
      const server = cli.spawn(['serve'], { ...env(), ATRIUM_DATA_DIR: dataDir, ATRIUM_LOG_LEVEL: 'error' });
      await server.waitForStdout(/Atrium is listening/);
      assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
      rmSync(dataDir, { recursive: true, force: true });

      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      assert.equal(ready.status, 503);
      const { detail } = (await ready.json()) as { detail: string };
      assert.equal(detail, `the database file ${dataDir}/atrium.db was removed while this node ran; this node takes no writes until it is restarted`);
      const write = await fetch(`http://127.0.0.1:${port}/v0/sign-in/email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"dee@example.org"}' });
      assert.equal(write.status, 503);
      assert.equal(write.headers.get('atrium-error'), 'node_unavailable');
      assert.deepEqual(await write.json(), { detail });
      await server.waitForStdout(/"level":50,.*"msg":"the database file \S+ was removed while this node ran: this node now refuses writes and reports not ready; restore it from a backup and restart the node/);

      server.child.kill('SIGTERM');
      assert.equal((await server.exited).code, 0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('ends with exit code 1 and says so when its port is taken, instead of running on with nothing listening', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as { port: number }).port;
    const dataDir = mkdtempSync(join(tmpdir(), 'atrium-data-'));
    try {
      const result = await cli.run(['serve'], { ATRIUM_PORT: String(taken), ATRIUM_HOST: '127.0.0.1', ATRIUM_DATA_DIR: dataDir, ATRIUM_LOG_LEVEL: 'warn' });
      assert.equal(result.code, 1, result.stdout);
      assert.match(result.stderr, new RegExp(`^atrium: cannot listen on 127\\.0\\.0\\.1:${taken}: something else is listening there \\(set ATRIUM_PORT`, 'm'));
      assert.doesNotMatch(result.stdout, /Atrium is listening/);
    } finally {
      holder.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses bad configuration with a one-line error and exit code 1', async () => {
    const result = await cli.run(['serve'], { ATRIUM_PORT: 'not-a-port' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^atrium: ATRIUM_PORT must be an integer/m);
  });
});
