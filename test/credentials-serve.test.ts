import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CliRunner, type CliProcess } from './support/cli.js';
import { destinationFor, startUpstream, type Upstream } from './support/gateway.js';
import { SIGN_IN_CODE } from './support/mail.js';
import { freePort } from './support/server.js';

/**
 * The default deployment, as the README's "Make an approved external call"
 * describes it: `atrium serve` with destinations and connections configured
 * runs the gateway itself, and `atrium call` reaches the provider through it.
 * Everything is set up over the public API, as a new host would be.
 */
describe('an approved external call through atrium serve and its embedded gateway (sqlite)', () => {
  const secret = `provider-${randomBytes(12).toString('hex')}`;
  const steward = `steward-${randomBytes(12).toString('hex')}`;
  let upstream: Upstream;
  let dir: string;
  let cli: CliRunner;
  let serve: CliProcess;
  let base: string;

  before(async () => {
    upstream = await startUpstream();
    dir = mkdtempSync(join(tmpdir(), 'atrium-credentials-serve-'));
    writeFileSync(join(dir, 'destinations.json'), JSON.stringify({ destinations: [destinationFor(upstream)] }));
    writeFileSync(
      join(dir, 'connections.json'),
      JSON.stringify({ connections: [{ id: 'weather', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['agent'], maxTtlSeconds: 30 }] }),
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    cli = new CliRunner(base);
    serve = cli.spawn(['serve'], {
      ATRIUM_PORT: String(port),
      ATRIUM_BASE_URL: base,
      ATRIUM_DATA_DIR: dir,
      ATRIUM_STEWARD_KEY: steward,
      // The mail with the sign-in code is logged at info level when no SMTP server is set.
      ATRIUM_LOG_LEVEL: 'info',
      ATRIUM_GATEWAY_DESTINATIONS: join(dir, 'destinations.json'),
      ATRIUM_GATEWAY_PORT: '0',
      ATRIUM_CREDENTIAL_CONNECTIONS: join(dir, 'connections.json'),
      ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
      PROVIDER_KEY: secret,
    });
    await serve.waitForStdout(/Atrium is listening on/);
  });

  after(async () => {
    await cli?.cleanup();
    await upstream?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  it('brokers the call with the provider key, which neither the caller nor the service’s output ever shows', async () => {
    assert.equal((await api('POST', '/v0/humans', steward, { handle: 'ada', email: 'ada@example.test' })).status, 201);
    assert.equal((await api('POST', '/v0/sign-in/email', undefined, { email: 'ada@example.test' })).status, 202);
    const [, code] = await serve.waitForStdout(SIGN_IN_CODE);
    const signedIn = await api('POST', '/v0/sign-in/verify', undefined, { email: 'ada@example.test', code });
    assert.equal(signedIn.status, 200, signedIn.body?.detail);
    const ada = signedIn.body.token as string;
    assert.equal((await api('POST', '/v0/spaces', ada, { slug: 'garden', name: 'The Garden' })).status, 201);
    assert.equal((await api('POST', '/v0/spaces/garden/approve', steward)).status, 200);
    const registered = await api('POST', '/v0/agents', undefined, { handle: 'scout', operator: 'ada' });
    assert.equal(registered.status, 201, registered.body?.detail);
    assert.equal((await api('POST', '/v0/agents/scout/confirm', ada)).status, 200);
    assert.equal((await api('POST', '/v0/agents/scout/approve', steward)).status, 200);
    const scout = { ATRIUM_TOKEN: registered.body.key as string };
    assert.equal((await cli.run(['spaces', 'join', 'garden'], scout)).code, 0);

    const listed = await cli.run(['connections', 'list', '--space', 'garden', '--json'], scout);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), { connections: [{ id: 'weather', approval_required_methods: [], require_task: false, max_ttl_seconds: 30 }] });

    const called = await cli.run(
      ['call', '--space', 'garden', '--connection', 'weather', '--method', 'GET', '--url', upstream.url('/v1/forecast?city=oslo'), '--purpose', "Tomorrow's frost risk"],
      scout,
    );
    assert.equal(called.code, 0, called.stderr);
    assert.match(called.stdout, /^status: +200$/m);
    assert.match(called.stdout, /\{"ok":true\}/);
    const got = upstream.received.at(-1)!;
    assert.equal(got.url, '/v1/forecast?city=oslo');
    assert.equal(got.headers.authorization, `Bearer ${secret}`);

    serve.child.kill('SIGTERM');
    const ended = await serve.exited;
    assert.equal(ended.code, 0, ended.stderr);
    for (const text of [ended.stdout, ended.stderr, called.stdout, called.stderr]) assert.ok(!text.includes(secret), 'the provider key was shown');
  });
});
