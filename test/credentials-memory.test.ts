import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CliRunner, type CliProcess } from './support/cli.js';
import { destinationFor, startUpstream, type Upstream } from './support/gateway.js';
import { SIGN_IN_CODE } from './support/mail.js';
import { freePort } from './support/server.js';
import { assertError } from './support/errors.js';

const MB = 1024 * 1024;
/** One large answer: well under the destination's cap, large enough that copies of it dominate both processes' memory. */
const ANSWER_BYTES = 30_000_000;
/** Three members asking twice each, as a review found: each call within its member's bound, together beyond what a process should hold. */
const AGENTS = 3;
const CALLS_EACH = 2;

/** A process's peak resident memory so far (VmHWM) and its resident memory now (VmRSS), in MiB. */
function memory(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)![1]) / 1024;
  return { peak: Math.round(kib('VmHWM')), now: Math.round(kib('VmRSS')) };
}

/**
 * Large provider answers through the default deployment: `atrium serve` and
 * its embedded gateway, each a process of its own, with a provider on
 * loopback. Several members ask at once; what each process holds at its peak
 * must stay bounded, and calls beyond the bounds are refused, not queued.
 */
describe('large answers through atrium serve and its embedded gateway (sqlite)', () => {
  const secret = `provider-${randomBytes(12).toString('hex')}`;
  const steward = `steward-${randomBytes(12).toString('hex')}`;
  let upstream: Upstream;
  let dir: string;
  let cli: CliRunner;
  let serve: CliProcess;
  let base: string;

  before(async () => {
    upstream = await startUpstream();
    dir = mkdtempSync(join(tmpdir(), 'atrium-credentials-memory-'));
    writeFileSync(join(dir, 'destinations.json'), JSON.stringify({ destinations: [destinationFor(upstream, { maxResponseBytes: 32 * MB, timeoutMs: 120_000 })] }));
    writeFileSync(
      join(dir, 'connections.json'),
      JSON.stringify({ connections: [{ id: 'weather', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['agent'], maxTtlSeconds: 300 }] }),
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
      // The connection's own bound is not what is tested: the process's room for answers, whoever asks, is.
      ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION: '100',
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
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  /** A Space with `AGENTS` agents admitted, each with its own key. */
  async function agents(): Promise<string[]> {
    assert.equal((await api('POST', '/v0/humans', steward, { handle: 'ada', email: 'ada@example.test' })).status, 201);
    assert.equal((await api('POST', '/v0/sign-in/email', undefined, { email: 'ada@example.test' })).status, 202);
    const [, code] = await serve.waitForStdout(SIGN_IN_CODE);
    const signedIn = await api('POST', '/v0/sign-in/verify', undefined, { email: 'ada@example.test', code });
    assert.equal(signedIn.status, 200, signedIn.body?.detail);
    const ada = signedIn.body.token as string;
    assert.equal((await api('POST', '/v0/spaces', ada, { slug: 'garden', name: 'The Garden' })).status, 201);
    assert.equal((await api('POST', '/v0/spaces/garden/approve', steward)).status, 200);
    const keys: string[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const handle = `scout-${i}`;
      const registered = await api('POST', '/v0/agents', undefined, { handle, operator: 'ada' });
      assert.equal(registered.status, 201, registered.body?.detail);
      assert.equal((await api('POST', `/v0/agents/${handle}/confirm`, ada)).status, 200);
      assert.equal((await api('POST', `/v0/agents/${handle}/approve`, steward)).status, 200);
      const key = registered.body.key as string;
      assert.equal((await api('POST', '/v0/spaces/garden/join', key)).status, 200);
      keys.push(key);
    }
    return keys;
  }

  const call = (key: string, path: string) =>
    api('POST', '/v0/spaces/garden/credential-calls', key, { connection_id: 'weather', purpose: 'Fetch the archive', request: { method: 'GET', url: upstream.url(path) } });

  it('keeps both processes’ peak memory bounded while several members fetch 30 MB answers at once, refusing calls beyond the room with 503', async (t) => {
    const keys = await agents();
    const gatewayPid = (JSON.parse(readFileSync(join(dir, 'gateway.json'), 'utf8')) as { pid: number }).pid;
    const servicePid = serve.child.pid!;

    // A small call first, so both processes have loaded everything a call needs before the baseline.
    const warm = await call(keys[0]!, '/v1/small');
    assert.equal(warm.status, 200, warm.body?.detail);
    const before = { service: memory(servicePid), gateway: memory(gatewayPid) };

    // The provider holds every answer until each call has either reached it or been refused,
    // so the calls are truly in flight together; then it answers them all at once.
    const held: ServerResponse[] = [];
    let refused = 0;
    let release!: () => void;
    const allIn = new Promise<void>((resolve) => (release = resolve));
    const settle = () => {
      if (held.length + refused === AGENTS * CALLS_EACH) release();
    };
    upstream.answer('/v1/archive', (_req, res) => {
      held.push(res);
      settle();
    });
    const calls = keys.flatMap((key) =>
      Array.from({ length: CALLS_EACH }, () =>
        call(key, '/v1/archive').then((res) => {
          if (res.status !== 200) {
            refused += 1;
            settle();
          }
          return res;
        }),
      ),
    );
    await allIn;
    for (const res of held) res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(ANSWER_BYTES, 'x'));
    const results = await Promise.all(calls);
    const after = { service: memory(servicePid), gateway: memory(gatewayPid) };
    const figures = `service peak ${before.service.peak} → ${after.service.peak} MiB (now ${after.service.now}), gateway peak ${before.gateway.peak} → ${after.gateway.peak} MiB (now ${after.gateway.now}); ${held.length} answered, ${refused} refused`;
    t.diagnostic(figures);

    for (const res of results) {
      if (res.status === 200) {
        assert.equal(res.body.status, 200);
        assert.equal(Buffer.from(res.body.bodyBase64 as string, 'base64').length, ANSWER_BYTES);
      } else {
        assertError(res, 'host_busy', JSON.stringify(res.body));
        assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      }
    }
    // The service's default room (ATRIUM_CREDENTIAL_BUFFER_BYTES) holds three calls to a destination of 32 MiB answers.
    assert.deepEqual([held.length, refused], [3, 3], figures);
    // All six let through took the service up by about 535 MiB and the gateway by about 315 MiB;
    // three let through, about 350 and 130.
    assert.ok(after.service.peak - before.service.peak < 450, figures);
    assert.ok(after.gateway.peak - before.gateway.peak < 220, figures);
  });
});
