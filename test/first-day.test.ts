import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CliRunner, type CliProcess } from './support/cli.js';
import { backends, freePort, withPg, withSearchPath } from './support/server.js';

/**
 * What a person meets on a first day with `atrium serve` (docs/operations.md,
 * "Files and their modes", "One node or several"): its files readable by them
 * alone, and a second `serve` on the same SQLite database refused rather than
 * running beside the first, while PostgreSQL nodes share a database as they
 * should. Real `atrium` processes throughout.
 */
const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');

const ISSUER_KEY = 'issuer-key-for-the-first-day-test-0123456789';

describe('atrium serve and its files (sqlite)', () => {
  let cli: CliRunner;
  let root: string;
  let dataDir: string;
  before(() => {
    cli = new CliRunner('http://127.0.0.1:1');
    root = mkdtempSync(join(tmpdir(), 'atrium-first-day-'));
    dataDir = join(root, 'data');
  });
  after(async () => {
    await cli.cleanup();
    rmSync(root, { recursive: true, force: true });
  });

  const serve = async (port: number, extra: Record<string, string> = {}): Promise<CliProcess> => {
    const proc = cli.spawn(['serve'], { ATRIUM_PORT: String(port), ATRIUM_DATA_DIR: dataDir, ATRIUM_LOG_LEVEL: 'warn', ...extra });
    await proc.waitForStdout(/Atrium is listening/);
    return proc;
  };
  const files = () => ({
    dir: mode(dataDir),
    db: mode(join(dataDir, 'atrium.db')),
    wal: mode(join(dataDir, 'atrium.db-wal')),
    shm: mode(join(dataDir, 'atrium.db-shm')),
  });

  let first: CliProcess;
  let firstPort: number;

  it('makes the data directory 0700 and the database, its -wal and -shm 0600 on a first start', async () => {
    firstPort = await freePort();
    first = await serve(firstPort);
    assert.deepEqual(files(), { dir: '0700', db: '0600', wal: '0600', shm: '0600' });
  });

  it('refuses a second serve on the same database with exit code 1 and says which one holds it', async () => {
    const port = await freePort();
    const proc = cli.spawn(['serve'], { ATRIUM_PORT: String(port), ATRIUM_DATA_DIR: dataDir, ATRIUM_LOG_LEVEL: 'warn' });
    // Whichever comes first: a second node that starts is stopped, and the test fails below.
    await Promise.race([proc.exited, proc.waitForStdout(/Atrium is listening/).then(() => proc.child.kill('SIGTERM'))]);
    const second = await proc.exited;
    assert.equal(second.code, 1, second.stdout);
    assert.match(
      second.stderr,
      new RegExp(`^atrium: another atrium serve \\(pid ${first.child.pid}, http://localhost:${firstPort}\\) is already serving the database ${dataDir}/atrium\\.db: one SQLite database is served by one process`, 'm'),
    );
    assert.doesNotMatch(second.stdout, /Atrium is listening/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status, undefined, 'nothing listens on the second port');
    assert.equal((await fetch(`http://127.0.0.1:${firstPort}/readyz`)).status, 200, 'the first still serves');
  });

  it('starts again after the first was killed outright, and tightens files others could read, saying so once', async () => {
    first.child.kill('SIGKILL');
    await first.exited;
    // What an older release, or a copy made by hand, leaves.
    chmodSync(dataDir, 0o755);
    for (const f of ['atrium.db', 'atrium.db-wal', 'atrium.db-shm']) if (existsSync(join(dataDir, f))) chmodSync(join(dataDir, f), 0o644);

    const again = await serve(await freePort());
    assert.deepEqual(files(), { dir: '0700', db: '0600', wal: '0600', shm: '0600' });
    again.child.kill('SIGTERM');
    const ended = await again.exited;
    assert.equal(ended.code, 0, `${ended.signal} ${ended.stderr}`);
    // Read once it ended: the log may reach stdout after the listening line.
    const said = ended.stdout.split('\n').filter((line) => line.includes('could be read by other users'));
    assert.deepEqual(
      said.map((line) => (JSON.parse(line) as { path: string; was: string; now: string }).path).sort(),
      [dataDir, join(dataDir, 'atrium.db'), join(dataDir, 'atrium.db-shm'), join(dataDir, 'atrium.db-wal')].sort(),
    );
    for (const line of said) assert.equal((JSON.parse(line) as { level: number }).level, 40, 'a warning');
  });

  it('keeps the gateway’s own store 0600 as well, tightening one others could read', async () => {
    const env = { ATRIUM_DATA_DIR: join(root, 'gateway-data'), ATRIUM_GATEWAY_PORT: '0', ATRIUM_GATEWAY_ISSUER_KEY: ISSUER_KEY, ATRIUM_LOG_LEVEL: 'warn' };
    const store = join(root, 'gateway-data', 'gateway.db');
    const gateway = cli.spawn(['gateway'], env);
    await gateway.waitForStdout(/Atrium gateway is listening/);
    assert.equal(mode(join(root, 'gateway-data')), '0700');
    assert.equal(mode(store), '0600');
    gateway.child.kill('SIGTERM');
    await gateway.exited;

    chmodSync(store, 0o644);
    const again = cli.spawn(['gateway'], env);
    await again.waitForStdout(/Atrium gateway is listening/);
    assert.equal(mode(store), '0600');
    again.child.kill('SIGTERM');
    const { stdout } = await again.exited;
    assert.match(stdout, new RegExp(`"msg":"${store.replace(/[.]/g, '\\.')} could be read by other users of this machine \\(mode 0644\\); it is now 0600`));
  });
});

if (backends().includes('postgres')) {
  describe('several atrium serve on one PostgreSQL database (postgres)', () => {
    let cli: CliRunner;
    let dataDir: string;
    const schema = `atrium_test_${randomBytes(6).toString('hex')}`;
    const url = process.env.ATRIUM_TEST_DATABASE_URL!;
    before(async () => {
      cli = new CliRunner('http://127.0.0.1:1');
      dataDir = mkdtempSync(join(tmpdir(), 'atrium-first-day-pg-'));
      await withPg(url, (c) => c.query(`create schema ${schema}`));
    });
    after(async () => {
      await cli.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
      await withPg(url, (c) => c.query(`drop schema ${schema} cascade`));
    });

    it('lets two nodes serve the same database, as the scale-out deployment does, with the data directory 0700', async () => {
      const env = (port: number) => ({ ATRIUM_PORT: String(port), ATRIUM_DATA_DIR: dataDir, ATRIUM_DATABASE_URL: withSearchPath(url, schema), ATRIUM_LOG_LEVEL: 'warn' });
      const [a, b] = [await freePort(), await freePort()];
      const one = cli.spawn(['serve'], env(a));
      await one.waitForStdout(/Atrium is listening/);
      const two = cli.spawn(['serve'], env(b));
      await two.waitForStdout(/Atrium is listening/);
      assert.equal((await fetch(`http://127.0.0.1:${a}/readyz`)).status, 200);
      assert.equal((await fetch(`http://127.0.0.1:${b}/readyz`)).status, 200);
      assert.equal(mode(dataDir), '0700');
      one.child.kill('SIGTERM');
      two.child.kill('SIGTERM');
      assert.equal((await one.exited).code, 0);
      assert.equal((await two.exited).code, 0);
    });
  });
}

describe('what atrium serve logs at its default level (sqlite)', () => {
  let cli: CliRunner;
  let root: string;
  before(() => {
    cli = new CliRunner('http://127.0.0.1:1');
    root = mkdtempSync(join(tmpdir(), 'atrium-first-day-log-'));
  });
  after(async () => {
    await cli.cleanup();
    rmSync(root, { recursive: true, force: true });
  });

  /** Serves on a fresh data directory, signs the first owner in as the README says, reads the front page; answers what the process wrote. */
  const firstDay = async (level: Record<string, string>) => {
    const port = await freePort();
    const env = { ATRIUM_PORT: String(port), ATRIUM_DATA_DIR: mkdtempSync(join(root, 'data-')), ...level };
    const server = cli.spawn(['serve'], env);
    await server.waitForStdout(/Atrium is listening/);
    assert.equal((await cli.run(['admin', 'create-owner', '--handle', 'ada', '--email', 'ada@example.org'], env)).code, 0);
    const signIn = await fetch(`http://127.0.0.1:${port}/v0/sign-in/email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"ada@example.org"}' });
    assert.equal(signIn.status, 202);
    assert.equal((await fetch(`http://127.0.0.1:${port}/v0/spaces`)).status, 200);
    // The mail is written once the answer has gone.
    await server.waitForStdout(/mail written to outbox/);
    server.child.kill('SIGTERM');
    const ended = await server.exited;
    assert.equal(ended.code, 0, ended.stderr);
    return ended.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string; req?: { path: string }; text?: string });
  };

  it('writes the sign-in mail and no line for a request that succeeded', async () => {
    const lines = await firstDay({});
    assert.deepEqual(lines.filter((l) => l.req !== undefined), [], 'no request lines');
    const mail = lines.filter((l) => l.msg === 'mail written to outbox (no ATRIUM_SMTP_URL)');
    assert.equal(mail.length, 1);
    assert.equal(mail[0]!.level, 30);
    assert.match(mail[0]!.text ?? '', /\b\d{6}\b|code/i);
  });

  it('writes one line per request at debug', async () => {
    const lines = await firstDay({ ATRIUM_LOG_LEVEL: 'debug' });
    const requests = lines.filter((l) => l.msg === 'request completed');
    assert.deepEqual(
      requests.map((l) => [l.level, l.req?.path]),
      [
        [20, '/v0/sign-in/email'],
        [20, '/v0/spaces'],
      ],
    );
  });
});

describe('a failure the webhook worker meets on every pass is logged once (sqlite)', () => {
  let cli: CliRunner;
  let dataDir: string;
  before(() => {
    cli = new CliRunner('http://127.0.0.1:1');
    dataDir = mkdtempSync(join(tmpdir(), 'atrium-first-day-lost-'));
  });
  after(async () => {
    await cli.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}-gone`, { recursive: true, force: true });
  });

  it('says once, with its stack, that the data directory went, and counts the repeats at debug', async () => {
    const server = cli.spawn(['serve'], { ATRIUM_PORT: String(await freePort()), ATRIUM_DATA_DIR: dataDir, ATRIUM_LOG_LEVEL: 'debug' });
    await server.waitForStdout(/Atrium is listening/);
    // Moved away in one step: removing it file by file races the running node, which may write a file into it meanwhile (ENOTEMPTY).
    renameSync(dataDir, `${dataDir}-gone`);
    // Until the worker has failed the same way four times, at whatever level each is written.
    await server.waitForStdout(/(?:"msg":"webhook[^\n]*\n[^]*){4}/);
    server.child.kill('SIGTERM');
    const { stdout } = await server.exited;
    const webhook = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { stack?: string }; repeats?: number })
      .filter((line) => line.msg.startsWith('webhook'));
    const errors = webhook.filter((line) => line.level >= 50);
    assert.ok(webhook.length >= 4, `${webhook.length} lines`);
    assert.equal(errors.length, 1, errors.map((e) => e.msg).join('\n'));
    assert.match(errors[0]!.err?.stack ?? '', /was removed while this node ran/);
    const repeats = webhook.filter((line) => line.level < 50);
    assert.ok(repeats.every((line) => line.level === 20 && line.err === undefined && /\(again; logged once until it changes\)$/.test(line.msg)));
    assert.deepEqual(
      repeats.map((line) => line.repeats),
      repeats.map((_, i) => i + 1),
    );
  });
});
