// What large provider answers cost the two processes of the default
// deployment (docs/gateway.md, "Calls in flight"): `atrium serve` with its
// embedded gateway and a provider on loopback; MEMBERS agents each ask CALLS
// times at once for an answer of ANSWER_BYTES, the provider holding every
// answer until each call has reached it or been refused. Reports each
// process's peak resident memory (VmHWM) before and after, and how many calls
// were answered and refused with which code.
//
// `npx tsx scripts/measure-credential-memory.mts [--root <checkout>]`; --root
// runs another checkout's sources (to compare with an earlier release; it needs
// its node_modules). MEMBERS=3, CALLS=2, ANSWER_BYTES=30000000 by default; any
// ATRIUM_* variable set is passed on (ATRIUM_CREDENTIAL_BUFFER_BYTES, …).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { destinationFor, startUpstream } from '../test/support/gateway.js';
import { SIGN_IN_CODE } from '../test/support/mail.js';
import { freePort } from '../test/support/server.js';

const MEMBERS = Number(process.env.MEMBERS ?? 3);
const CALLS = Number(process.env.CALLS ?? 2);
const ANSWER_BYTES = Number(process.env.ANSWER_BYTES ?? 30_000_000);
const rootArg = process.argv.indexOf('--root');
const root = rootArg > 0 ? resolve(process.argv[rootArg + 1]!) : fileURLToPath(new URL('..', import.meta.url));

/** A process's peak resident memory so far (VmHWM), in MiB. */
function peak(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) / 1024);
}

let output = '';
const listeners = new Set<() => void>();
function waitForOutput(pattern: RegExp, from = 0): Promise<RegExpMatchArray> {
  return new Promise((done) => {
    const check = () => {
      const match = pattern.exec(output.slice(from));
      if (!match) return;
      listeners.delete(check);
      done(match);
    };
    listeners.add(check);
    check();
  });
}

const upstream = await startUpstream();
const dir = mkdtempSync(join(tmpdir(), 'atrium-credential-memory-'));
const steward = `steward-${randomBytes(12).toString('hex')}`;
writeFileSync(join(dir, 'destinations.json'), JSON.stringify({ destinations: [destinationFor(upstream, { maxResponseBytes: 32 * 1024 * 1024, timeoutMs: 120_000 })] }));
writeFileSync(join(dir, 'connections.json'), JSON.stringify({ connections: [{ id: 'archive', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['agent'], maxTtlSeconds: 300 }] }));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const passed = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('ATRIUM_CREDENTIAL_') || name.startsWith('ATRIUM_GATEWAY_BUFFER')));
const serve: ChildProcess = spawn(process.execPath, [join(root, 'bin', 'atrium.js'), 'serve'], {
  cwd: dir,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    PATH: process.env.PATH,
    ATRIUM_CLI_SOURCES: '1',
    ATRIUM_PORT: String(port),
    ATRIUM_BASE_URL: base,
    ATRIUM_DATA_DIR: dir,
    ATRIUM_STEWARD_KEY: steward,
    ATRIUM_LOG_LEVEL: 'info',
    ATRIUM_GATEWAY_DESTINATIONS: join(dir, 'destinations.json'),
    ATRIUM_GATEWAY_PORT: '0',
    ATRIUM_CREDENTIAL_CONNECTIONS: join(dir, 'connections.json'),
    ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
    // Every member's calls go through one connection: its own bound is not what is measured.
    ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION: '100',
    PROVIDER_KEY: `provider-${randomBytes(12).toString('hex')}`,
    ...passed,
  },
});
for (const stream of [serve.stdout!, serve.stderr!]) {
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    for (const check of [...listeners]) check();
  });
}

const api = async (method: string, path: string, token: string | undefined, body?: unknown) => {
  const res = await fetch(base + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, code: res.headers.get('atrium-error'), body: text ? JSON.parse(text) : undefined };
};

try {
  await waitForOutput(/Atrium is listening on/);
  await api('POST', '/v0/humans', steward, { handle: 'ada', email: 'ada@example.test' });
  const mark = output.length;
  await api('POST', '/v0/sign-in/email', undefined, { email: 'ada@example.test' });
  const [, code] = await waitForOutput(SIGN_IN_CODE, mark);
  const ada = (await api('POST', '/v0/sign-in/verify', undefined, { email: 'ada@example.test', code })).body.token as string;
  await api('POST', '/v0/spaces', ada, { slug: 'garden', name: 'The Garden' });
  await api('POST', '/v0/spaces/garden/approve', steward);
  const keys: string[] = [];
  for (let i = 0; i < MEMBERS; i++) {
    const handle = `scout-${i}`;
    const registered = await api('POST', '/v0/agents', undefined, { handle, operator: 'ada' });
    await api('POST', `/v0/agents/${handle}/confirm`, ada);
    await api('POST', `/v0/agents/${handle}/approve`, steward);
    await api('POST', '/v0/spaces/garden/join', registered.body.key);
    keys.push(registered.body.key as string);
  }
  const call = (key: string, path: string) =>
    api('POST', '/v0/spaces/garden/credential-calls', key, { connection_id: 'archive', purpose: 'Fetch the archive', request: { method: 'GET', url: upstream.url(path) } });

  const gatewayPid = (JSON.parse(readFileSync(join(dir, 'gateway.json'), 'utf8')) as { pid: number }).pid;
  const servicePid = serve.pid!;
  const warm = await call(keys[0]!, '/v1/small');
  if (warm.status !== 200) throw new Error(`the warm-up call failed: ${warm.status} ${JSON.stringify(warm.body)}`);
  const before = { service: peak(servicePid), gateway: peak(gatewayPid) };

  const total = MEMBERS * CALLS;
  const held: ServerResponse[] = [];
  const refused: string[] = [];
  let allIn!: () => void;
  const everyCallIn = new Promise<void>((done) => (allIn = done));
  const settle = () => {
    if (held.length + refused.length === total) allIn();
  };
  upstream.answer('/v1/archive', (_req, res) => {
    held.push(res);
    settle();
  });
  const calls = keys.flatMap((key) =>
    Array.from({ length: CALLS }, () =>
      call(key, '/v1/archive').then((res) => {
        if (res.status !== 200) {
          refused.push(`${res.status} ${res.code}`);
          settle();
        }
        return res;
      }),
    ),
  );
  await everyCallIn;
  for (const res of held) res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(ANSWER_BYTES, 'x'));
  const results = await Promise.all(calls);
  const whole = results.filter((r) => r.status === 200 && Buffer.from(r.body.bodyBase64 as string, 'base64').length === ANSWER_BYTES).length;
  const after = { service: peak(servicePid), gateway: peak(gatewayPid) };
  const tally = [...new Set(refused)].map((c) => `${refused.filter((r) => r === c).length} × ${c}`).join(', ') || 'none';
  console.log(`${MEMBERS} members × ${CALLS} calls of ${ANSWER_BYTES} bytes, ${root}`);
  console.log(`answered whole: ${whole}; refused: ${tally}`);
  console.log(`service peak: ${before.service} → ${after.service} MiB (+${after.service - before.service})`);
  console.log(`gateway peak: ${before.gateway} → ${after.gateway} MiB (+${after.gateway - before.gateway})`);
} finally {
  serve.kill('SIGTERM');
  await new Promise((done) => serve.once('close', done));
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
}
