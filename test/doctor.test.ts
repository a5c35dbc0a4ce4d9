import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { CliRunner } from './support/cli.js';
import { freePort } from './support/server.js';

/**
 * `atrium doctor` as an operator runs it before a first start
 * (docs/operations.md, "Before the first start"): a real SMTP server, a real
 * port held by someone else, real files with the wrong modes.
 */
describe('atrium doctor', () => {
  let cli: CliRunner;
  let smtp: SMTPServer;
  let smtpPort: number;
  let work: string;

  before(async () => {
    cli = new CliRunner('http://127.0.0.1:9');
    work = mkdtempSync(join(tmpdir(), 'atrium-doctor-'));
    smtp = new SMTPServer({ disabledCommands: ['STARTTLS', 'AUTH'], authOptional: true, logger: false });
    smtpPort = await freePort();
    await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
  });
  after(async () => {
    await cli.cleanup();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    rmSync(work, { recursive: true, force: true });
  });

  const lines = (stdout: string) => Object.fromEntries(stdout.trim().split('\n').filter((l) => /^(ok {2}|WARN|FAIL) /.test(l)).map((l) => [l.slice(5, l.indexOf(':')), l.slice(0, 4).trim()]));

  it('finds nothing to stop a start of a sound configuration, and says so', async () => {
    const dataDir = join(work, 'sound');
    const result = await cli.run(['doctor'], { ATRIUM_DATA_DIR: dataDir, ATRIUM_PORT: String(await freePort()), ATRIUM_HOST: '127.0.0.1', ATRIUM_SMTP_URL: `smtp://127.0.0.1:${smtpPort}` });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(lines(result.stdout), {
      configuration: 'ok',
      'base URL': 'ok',
      'listen address': 'ok',
      database: 'ok',
      'disk space': 'ok',
      mail: 'ok',
      'egress allow-list': 'ok',
      'gateway destinations': 'ok',
      'gateway port': 'ok',
      'key files': 'ok',
      'database file modes': 'ok',
    });
    assert.match(result.stdout, new RegExp(`^ok   database: sqlite:${dataDir}/atrium\\.db holds no Atrium database yet: the first start sets one up$`, 'm'));
    assert.match(result.stdout, /^Nothing stops a start\.$/m);
  });

  it('says in plain words what would go wrong, and exits 1', async () => {
    const dataDir = join(work, 'unsound');
    // A host that ran once, whose key file someone made readable to all.
    assert.equal((await cli.run(['migrate'], { ATRIUM_DATA_DIR: dataDir })).code, 0);
    writeFileSync(join(dataDir, 'webhook-sealing.key'), `${'a'.repeat(43)}\n`);
    chmodSync(join(dataDir, 'webhook-sealing.key'), 0o644);
    // And its database, as an older release made it.
    chmodSync(join(dataDir, 'atrium.db'), 0o644);
    const destinations = join(work, 'destinations.json');
    writeFileSync(destinations, JSON.stringify({
      destinations: [{ id: 'weather', origins: ['https://api.weather.example'], pathPrefixes: ['/'], methods: ['GET'], requestHeaders: [], responseHeaders: [], timeoutMs: 5000, maxResponseBytes: 65536, credential: { header: 'authorization', env: 'WEATHER_KEY_NOT_SET', prefix: 'Bearer ' } }],
    }));
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    // The embedded gateway's port, held by something else.
    const gatewayHolder: Server = createServer();
    await new Promise<void>((resolve) => gatewayHolder.listen(0, '127.0.0.1', resolve));
    const gatewayPort = (gatewayHolder.address() as { port: number }).port;
    const closed = await freePort();
    try {
      const result = await cli.run(['doctor'], {
        ATRIUM_DATA_DIR: dataDir,
        ATRIUM_HOST: '127.0.0.1',
        ATRIUM_PORT: String((holder.address() as { port: number }).port),
        ATRIUM_BASE_URL: 'http://atrium.example.org',
        ATRIUM_SMTP_URL: `smtp://127.0.0.1:${closed}`,
        ATRIUM_EGRESS_ALLOW_CIDRS: '0.0.0.0/0',
        ATRIUM_GATEWAY_DESTINATIONS: destinations,
        ATRIUM_GATEWAY_PORT: String(gatewayPort),
      });
      assert.equal(result.code, 1);
      assert.deepEqual(lines(result.stdout), {
        configuration: 'ok',
        'base URL': 'WARN',
        'listen address': 'FAIL',
        database: 'ok',
        migrations: 'ok',
        'disk space': 'ok',
        mail: 'FAIL',
        'egress allow-list': 'FAIL',
        'gateway destinations': 'FAIL',
        'gateway port': 'FAIL',
        'key files': 'FAIL',
        'database file modes': 'WARN',
      });
      assert.match(result.stdout, /^WARN base URL: http:\/\/atrium\.example\.org is plain HTTP on a name others reach/m);
      assert.match(result.stdout, /^FAIL listen address: something already listens on 127\.0\.0\.1:\d+ \(another Atrium\?\): stop it, or set ATRIUM_PORT$/m);
      assert.match(result.stdout, new RegExp(`^FAIL mail: smtp://127\\.0\\.0\\.1:${closed} did not accept a connection: .*ECONNREFUSED`, 'm'));
      assert.match(result.stdout, /^FAIL egress allow-list: ATRIUM_EGRESS_ALLOW_CIDRS holds 0\.0\.0\.0\/0, every address/m);
      assert.match(result.stdout, /^FAIL gateway destinations: destination "weather": its credential variable WEATHER_KEY_NOT_SET is not set$/m);
      assert.match(result.stdout, /^FAIL key files: \S+webhook-sealing\.key may be read by others \(mode 644\): chmod 600 it$/m);
      assert.match(result.stdout, new RegExp(`^FAIL gateway port: something already listens on 127\\.0\\.0\\.1:${gatewayPort}, where the embedded gateway would \\(an earlier one\\?\\): stop it, or set ATRIUM_GATEWAY_PORT$`, 'm'));
      assert.match(result.stdout, new RegExp(`^WARN database file modes: ${dataDir}/atrium\\.db \\(mode 0644\\) may be read by other users of this machine: the next start makes directories 0700 and files 0600`, 'm'));
      assert.match(result.stderr, /^atrium: 6 checks failed: fix them before starting$/m);
    } finally {
      holder.close();
      gatewayHolder.close();
    }
  });

  it('stops at a configuration that does not load, naming the variable', async () => {
    const result = await cli.run(['doctor'], { ATRIUM_DATA_DIR: join(work, 'bad'), ATRIUM_PORT: 'eighty' });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^FAIL configuration: ATRIUM_PORT must be an integer/m);
  });
});
