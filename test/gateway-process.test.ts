import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startEmbeddedGateway } from '../src/cli/embedded-gateway.js';
import { loadConfig } from '../src/config.js';
import { loadGatewayConfig } from '../src/gateway/config.js';
import { GatewayConfigError } from '../src/gateway/errors.js';
import { CliRunner } from './support/cli.js';
import { childEnv, destinationFor, startUpstream, ticketRequest, type DestinationEntry, type Upstream } from './support/gateway.js';
import { freePort } from './support/server.js';

const SECRET = 'sk-provider-secret-process-0123';
const ISSUER_KEY = 'issuer-key-for-tests-0123456789abcdef';

/** Whether anything accepts a connection at `url` now. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return true;
  } catch {
    return false;
  }
}

describe('atrium gateway, the process', () => {
  let cli: CliRunner;
  let upstream: Upstream;
  let dir: string;
  before(async () => {
    upstream = await startUpstream();
    dir = mkdtempSync(join(tmpdir(), 'atrium-gateway-process-'));
    cli = new CliRunner('http://127.0.0.1:1');
  });
  after(async () => {
    await cli?.cleanup();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const destinationsFile = (name: string, content: unknown): string => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const gatewayEnv = (extra: Record<string, string> = {}) => ({
    ATRIUM_GATEWAY_PORT: '0',
    ATRIUM_GATEWAY_ISSUER_KEY: ISSUER_KEY,
    ATRIUM_DATA_DIR: dir,
    ATRIUM_LOG_LEVEL: 'warn',
    PROVIDER_KEY: SECRET,
    ...extra,
  });

  it('stops at start with a clear message on a configuration it cannot use', async () => {
    const good = destinationFor(upstream);
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ ATRIUM_GATEWAY_DESTINATIONS: destinationsFile('not-json.json', '{"destinations": [') }, /ATRIUM_GATEWAY_DESTINATIONS: cannot read .*not-json\.json as JSON/],
      [{ ATRIUM_GATEWAY_DESTINATIONS: join(dir, 'absent.json') }, /ATRIUM_GATEWAY_DESTINATIONS: cannot read .*absent\.json/],
      [{ ATRIUM_GATEWAY_DESTINATIONS: destinationsFile('shape.json', { destinations: [{ ...good, timeoutMs: 'soon' }] }) }, /ATRIUM_GATEWAY_DESTINATIONS: .*shape\.json: \/destinations\/0\/timeoutMs/],
      [{ ATRIUM_GATEWAY_DESTINATIONS: destinationsFile('extra.json', { destinations: [{ ...good, followRedirects: true }] }) }, /ATRIUM_GATEWAY_DESTINATIONS: .*extra\.json/],
      [{ ATRIUM_GATEWAY_DESTINATIONS: destinationsFile('origin.json', { destinations: [{ ...good, origins: [`${upstream.origin}/v1`] }] }) }, /origin ".*\/v1" must be exactly scheme:\/\/host\[:port\]/],
      [{ ATRIUM_GATEWAY_DESTINATIONS: destinationsFile('twice.json', { destinations: [good, good] }) }, /destination "provider" .*: the id is used twice/],
      [{ ATRIUM_GATEWAY_DESTINATIONS: destinationsFile('cookie.json', { destinations: [{ ...good, requestHeaders: ['Cookie'] }] }) }, /requestHeaders may not allow cookie/],
      [{ ATRIUM_GATEWAY_DESTINATIONS: destinationsFile('unset.json', { destinations: [{ ...good, credential: { header: 'x-key', env: 'UNSET_PROVIDER_KEY' } }] }) }, /destination "provider": its credential variable UNSET_PROVIDER_KEY is not set/],
      [{ ATRIUM_GATEWAY_ISSUER_KEY: 'short' }, /ATRIUM_GATEWAY_ISSUER_KEY must be set to at least 32 characters/],
      [{ ATRIUM_GATEWAY_AUDIT_KEY: 'short' }, /ATRIUM_GATEWAY_AUDIT_KEY must be at least 32 characters/],
      [{ ATRIUM_GATEWAY_AUDIT_KEY: ISSUER_KEY }, /ATRIUM_GATEWAY_AUDIT_KEY must differ from ATRIUM_GATEWAY_ISSUER_KEY/],
      [{ ATRIUM_GATEWAY_PORT: 'eighty' }, /ATRIUM_GATEWAY_PORT must be an integer 0-65535/],
      [{ ATRIUM_EGRESS_ALLOW_CIDRS: '10.0.0.0/33' }, /ATRIUM_EGRESS_ALLOW_CIDRS: "10\.0\.0\.0\/33" is not/],
      [{ ATRIUM_GATEWAY_DATABASE_URL: 'mysql://x' }, /ATRIUM_GATEWAY_DATABASE_URL must start with sqlite: or postgres:\/\//],
    ];
    for (const [env, message] of cases) {
      assert.throws(() => loadGatewayConfig(gatewayEnv(env)), (err: Error) => {
        assert.ok(err instanceof GatewayConfigError);
        assert.match(err.message, message);
        assert.ok(!err.message.includes(SECRET));
        return true;
      });
    }
    // The command itself: one line on stderr, exit code 1, never listening.
    const throughCli = cases.filter(([env]) => /not-json|unset/.test(env.ATRIUM_GATEWAY_DESTINATIONS ?? ''));
    assert.equal(throughCli.length, 2);
    const results = await Promise.all(throughCli.map(([env]) => cli.run(['gateway'], gatewayEnv(env))));
    for (const [i, result] of results.entries()) {
      assert.equal(result.code, 1, `${result.stdout}${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^atrium: .*${throughCli[i]![1].source}`, 'm'));
      assert.doesNotMatch(result.stdout, /listening/);
      assert.ok(!(result.stdout + result.stderr).includes(SECRET));
    }
  });

  it('listens, says where (also in gateway.json), and stops cleanly on SIGTERM', async () => {
    const proc = cli.spawn(['gateway'], gatewayEnv({ ATRIUM_GATEWAY_DESTINATIONS: destinationsFile('ok.json', { destinations: [destinationFor(upstream)] }) }));
    const [, url] = await proc.waitForStdout(/Atrium gateway is listening on (http:\/\/127\.0\.0\.1:\d+) \(destinations: provider\)/);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.equal(JSON.parse(readFileSync(join(dir, 'gateway.json'), 'utf8')).url, url);
    proc.child.kill('SIGTERM');
    const ended = await proc.exited;
    assert.equal(ended.code, 0, ended.stderr);
    assert.equal(await answers(`${url!}/healthz`), false);
    assert.ok(!(ended.stdout + ended.stderr).includes(SECRET));
  });

  it('reports an intact empty ledger, and a missing one', async () => {
    const ok = await cli.run(['gateway', 'verify-ledger'], { ATRIUM_DATA_DIR: dir });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /Ledger OK: 0 records/);
    const missing = await cli.run(['gateway', 'verify-ledger', '--database-url', `sqlite:${join(dir, 'nothing.db')}`]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no gateway ledger at sqlite:/);
  });
});

describe('atrium serve with an embedded gateway', () => {
  let cli: CliRunner;
  let upstream: Upstream;
  let dir: string;
  let port: number;
  before(async () => {
    upstream = await startUpstream();
    dir = mkdtempSync(join(tmpdir(), 'atrium-embedded-'));
    port = await freePort();
    cli = new CliRunner(`http://127.0.0.1:${port}`);
  });
  after(async () => {
    await cli?.cleanup();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const serveEnv = (destinations: DestinationEntry[] | string, extra: Record<string, string> = {}) => {
    const path = join(dir, `destinations-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, typeof destinations === 'string' ? destinations : JSON.stringify({ destinations }));
    return {
      ATRIUM_PORT: String(port),
      ATRIUM_DATA_DIR: dir,
      ATRIUM_LOG_LEVEL: 'warn',
      ATRIUM_GATEWAY_DESTINATIONS: path,
      ATRIUM_GATEWAY_PORT: '0',
      PROVIDER_KEY: SECRET,
      ...extra,
    };
  };

  it('starts the gateway before listening and stops it on shutdown', async () => {
    const serve = cli.spawn(['serve'], serveEnv([destinationFor(upstream)]));
    const [, gatewayUrl] = await serve.waitForStdout(/Atrium gateway is listening on (http:\/\/127\.0\.0\.1:\d+)/);
    await serve.waitForStdout(/Atrium is listening on/);
    assert.ok(serve.stdout.indexOf('Atrium gateway is listening') < serve.stdout.indexOf('Atrium is listening'), 'the gateway was ready first');
    assert.deepEqual(await (await fetch(`${gatewayUrl}/healthz`)).json(), { status: 'ok' });
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    // The issuer key is fresh and private: a guess is refused.
    const guess = await fetch(`${gatewayUrl}/v1/tickets`, { method: 'POST', headers: { authorization: `Bearer ${ISSUER_KEY}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(guess.status, 401);

    serve.child.kill('SIGTERM');
    const ended = await serve.exited;
    assert.equal(ended.code, 0, ended.stderr);
    assert.equal(await answers(`${gatewayUrl!}/healthz`), false, 'the gateway stopped with the service');
    assert.ok(!(ended.stdout + ended.stderr).includes(SECRET));
  });

  it('hands the service the issuer key and the address, and takes the secret variables out of its environment', async () => {
    const env = childEnv(serveEnv([destinationFor(upstream)], { OTHER_SETTING: 'kept' }));
    const config = loadConfig(env);
    const gateway = await startEmbeddedGateway(config, env);
    try {
      assert.ok(gateway);
      assert.match(config.gateway.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(gateway.url, config.gateway.url);
      assert.ok((config.gateway.issuerKey ?? '').length >= 32);
      assert.equal(env.PROVIDER_KEY, undefined, 'the service no longer holds the secret');
      assert.equal(env.OTHER_SETTING, 'kept');
      const ticket = await fetch(`${config.gateway.url}/v1/tickets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${config.gateway.issuerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(ticketRequest(upstream.url('/v1/x'))),
      });
      assert.equal(ticket.status, 201, 'the gateway accepts the key the service was given');
    } finally {
      await gateway?.stop();
    }
    assert.equal(await answers(`${config.gateway.url}/healthz`), false);
  });

  it('exits non-zero, without listening, when the gateway cannot start', async () => {
    const result = await cli.run(['serve'], serveEnv('{"destinations": [ not json'));
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /ATRIUM_GATEWAY_DESTINATIONS: cannot read .* as JSON/);
    assert.match(result.stderr, /the embedded credential gateway did not start/);
    assert.doesNotMatch(result.stdout, /Atrium is listening/);
  });

  it('exits non-zero when the gateway dies under it', async () => {
    const serve = cli.spawn(['serve'], serveEnv([destinationFor(upstream)]));
    await serve.waitForStdout(/Atrium is listening on/);
    const { pid } = JSON.parse(readFileSync(join(dir, 'gateway.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
    const ended = await serve.exited;
    assert.equal(ended.code, 1);
    assert.match(ended.stderr, /the embedded credential gateway stopped \(signal SIGKILL\); the service stops with it/);
  });

  it('runs no gateway when ATRIUM_GATEWAY_URL names one', async () => {
    const serve = cli.spawn(['serve'], serveEnv([destinationFor(upstream)], { ATRIUM_GATEWAY_URL: 'http://127.0.0.1:9', ATRIUM_GATEWAY_ISSUER_KEY: ISSUER_KEY }));
    await serve.waitForStdout(/Atrium is listening on/);
    assert.doesNotMatch(serve.stdout, /Atrium gateway is listening/);
    // An answer means serve has finished starting (its signal handlers are set).
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    serve.child.kill('SIGTERM');
    const ended = await serve.exited;
    assert.equal(ended.code, 0, `${ended.signal} ${ended.stdout} ${ended.stderr}`);
  });
});
