import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startSession } from '../src/identity/sessions.js';
import { createHuman } from '../src/members/service.js';
import { assignRole } from '../src/roles/service.js';
import { systemClock } from '../src/shared/clock.js';
import { Database } from '../src/storage/database.js';
import { CliRunner, type CliProcess } from './support/cli.js';
import { type ContractPage } from './support/events.js';
import { freePort, withPg, withSearchPath } from './support/server.js';

/**
 * A rolling upgrade on one PostgreSQL database (docs/operations.md,
 * "Upgrades"). A node of the previous release, `main` as it stood before the
 * operations work began, checked out as a git worktree and run from its own
 * sources, serves; a node of this release starts beside it and migrates the
 * schema while the old one keeps taking reads and writes; then the old node is
 * replaced, and nothing written through either is missing or out of order.
 */
const PREVIOUS_RELEASE = 'd75b240'; // main before backups, the janitor and migrate --check
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STEWARD = 'steward-rolling-upgrade-key-012345';
const databaseUrl = process.env.ATRIUM_TEST_DATABASE_URL;

if (databaseUrl) {
  describe('a rolling upgrade from the previous release (postgres)', () => {
    const schema = `atrium_rolling_${randomBytes(6).toString('hex')}`;
    const url = withSearchPath(databaseUrl, schema);
    const work = mkdtempSync(join(tmpdir(), 'atrium-rolling-'));
    const previous = join(work, 'previous');
    const sealingKey = randomBytes(32).toString('base64url');
    const cli = new CliRunner('http://127.0.0.1:1');
    let old: { url: string; child: ChildProcess; exited: Promise<number | null> } | undefined;
    let current: { url: string; proc: CliProcess } | undefined;
    let session: string;

    const env = (port: number, node: string) => ({
      ATRIUM_DATABASE_URL: url,
      ATRIUM_DATA_DIR: join(work, node),
      ATRIUM_WEBHOOK_SEALING_KEY: sealingKey,
      ATRIUM_HOST: '127.0.0.1',
      ATRIUM_PORT: String(port),
      ATRIUM_BASE_URL: `http://127.0.0.1:${port}`,
      ATRIUM_STEWARD_KEY: STEWARD,
      ATRIUM_LOG_LEVEL: 'error',
    });

    before(async () => {
      // The previous release's sources, run through tsx as a checkout without a build runs (bin/atrium.js).
      execFileSync('git', ['worktree', 'add', '--detach', previous, PREVIOUS_RELEASE], { cwd: ROOT, stdio: 'ignore' });
      symlinkSync(join(ROOT, 'node_modules'), join(previous, 'node_modules'));
      await withPg(databaseUrl, (c) => c.query(`create schema ${schema}`));
      const port = await freePort();
      const childEnv: NodeJS.ProcessEnv = {};
      for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('ATRIUM_') && k !== 'CI') childEnv[k] = v;
      const child = spawn(process.execPath, [join(previous, 'bin', 'atrium.js'), 'serve'], { cwd: previous, env: { ...childEnv, ...env(port, 'previous') }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        const look = () => (/Atrium is listening/.test(out) ? resolve() : undefined);
        child.stdout!.on('data', look);
        void exited.then(() => reject(new Error(`the previous release's node ended before listening:\n${out}`)));
      });
      old = { url: `http://127.0.0.1:${port}`, child, exited };
      // The people, made as `atrium admin create-owner` makes them, straight in the database the old node set up.
      const db = Database.open(url, { clock: systemClock });
      try {
        session = await db.transaction(async (tx) => {
          await createHuman(tx, { system: 'admin_cli' }, { handle: 'ada', email: 'ada@example.test' });
          await assignRole(tx, { system: 'admin_cli' }, { member: 'ada', role: 'owner' });
          return (await startSession(tx, 'ada')).token;
        });
      } finally {
        await db.destroy();
      }
      assert.equal((await call(old.url, 'POST', '/v0/spaces', { slug: 'hall', name: 'Hall' })).status, 201);
      assert.equal((await call(old.url, 'POST', '/v0/spaces/hall/approve', undefined, STEWARD)).status, 200);
      assert.equal((await call(old.url, 'POST', '/v0/spaces/hall/join')).status, 200);
    });

    after(async () => {
      old?.child.kill('SIGKILL');
      await old?.exited;
      await cli.cleanup();
      await withPg(databaseUrl, (c) => c.query(`drop schema if exists ${schema} cascade`));
      if (existsSync(previous)) execFileSync('git', ['worktree', 'remove', '--force', previous], { cwd: ROOT, stdio: 'ignore' });
      rmSync(work, { recursive: true, force: true });
    });

    async function call<T = unknown>(base: string, method: string, path: string, body?: unknown, token = session): Promise<{ status: number; body: T }> {
      const res = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    }
    const post = async (base: string, body: string) => assert.equal((await call(base, 'POST', '/v0/spaces/hall/channels/general/messages', { body })).status, 201, body);
    const bodies = async (base: string) => (await call<ContractPage>(base, 'GET', '/v0/spaces/hall/events?limit=200')).body.events.flatMap((e) => (e.type === 'message_posted' ? [e.payload.body] : []));

    it('lets this release migrate while the previous one serves, both read and write, then replaces the old node', async () => {
      await post(old!.url, 'old 1');
      // The new release, before it starts: what it would run, and that the old node may keep serving meanwhile.
      const check = await cli.run(['migrate', '--check'], env(1, 'check'));
      assert.equal(check.code, 0, check.stdout + check.stderr);
      assert.match(check.stdout, /migrations? pending:\n( {2}\S+ {2}expand: safe while nodes of the previous release serve\n)+Safe while nodes of the previous release serve/);

      const port = await freePort();
      const proc = cli.spawn(['serve'], env(port, 'current'));
      await proc.waitForStdout(/Atrium is listening/);
      current = { url: `http://127.0.0.1:${port}`, proc };
      const after = await cli.run(['migrate', '--check'], env(1, 'check'));
      assert.match(after.stdout, /is up to date\.\n$/, 'the new node migrated the schema');

      // The old node, on the upgraded schema, takes reads and writes; each node reads what the other wrote.
      await post(old!.url, 'old 2');
      await post(current.url, 'new 1');
      await post(old!.url, 'old 3');
      const expected = ['old 1', 'old 2', 'new 1', 'old 3'];
      assert.deepEqual(await bodies(old!.url), expected);
      assert.deepEqual(await bodies(current.url), expected);
      assert.equal((await call(old!.url, 'GET', '/v0/spaces/hall')).status, 200);

      // Replaced: the old node drains and ends; the new one has it all and goes on.
      old!.child.kill('SIGTERM');
      assert.equal(await old!.exited, 0);
      old = undefined;
      await post(current.url, 'new 2');
      assert.deepEqual(await bodies(current.url), [...expected, 'new 2']);
      current.proc.child.kill('SIGTERM');
      assert.equal((await current.proc.exited).code, 0);
    });
  });
}
