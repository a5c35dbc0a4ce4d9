import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { addressPolicy, judgeAddress } from '../src/egress/address-policy.js';
import { EgressFailed, EgressPool, EgressRefused, sendEgress } from '../src/egress/request.js';
import { parseTargetUrl, resolveTarget, type Resolver } from '../src/egress/target.js';

const publicOnly = addressPolicy([]);
const loopbackAllowed = addressPolicy(['127.0.0.0/8', '::1/128']);
const limits = { timeoutMs: 2000, maxResponseBytes: 1024 };

/** Resolves invented names to fixed addresses: no DNS, no traffic beyond loopback. */
function resolverOf(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof EgressRefused, `expected a refusal, got ${String(err)}`);
    return err.reason;
  }
  assert.fail('expected a refusal');
}

describe('egress address policy', () => {
  const refused: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['0.0.0.0', /unspecified/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['169.254.169.254', /link-local/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fe80::1', /link-local/],
    ['fc00::1', /unique local/],
    ['fd12:3456::1', /unique local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:169.254.169.254', /link-local/],
    ['64:ff9b::a00:1', /NAT64/],
    ['64:ff9b::808:808', /NAT64/],
    ['2002:7f00:1::1', /6to4/],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', /Teredo/],
    ['2001:db8::1', /reserved/],
    // IPv4-compatible (::/96), in hex and in the dotted notation Node's resolver prints them in.
    ['::a9fe:a9fe', /IPv4-compatible/],
    ['::7f00:1', /IPv4-compatible/],
    ['::808:808', /IPv4-compatible/],
    ['::8.8.8.8', /IPv4-compatible/],
    ['::169.254.169.254', /IPv4-compatible/],
  ];
  for (const [address, reason] of refused) {
    it(`refuses ${address}`, () => {
      const judgement = judgeAddress(address, publicOnly);
      assert.equal(judgement.allowed, false);
      assert.match((judgement as { reason: string }).reason, reason);
    });
  }

  it('allows public unicast, and an IPv4-mapped public address', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.deepEqual(judgeAddress(address, publicOnly), { allowed: true, allowListed: false }, address);
    }
  });

  it('exempts allow-listed ranges, in both notations of an IPv4 address', () => {
    assert.deepEqual(judgeAddress('127.0.0.1', loopbackAllowed), { allowed: true, allowListed: true });
    assert.deepEqual(judgeAddress('::ffff:127.0.0.1', loopbackAllowed), { allowed: true, allowListed: true });
    assert.deepEqual(judgeAddress('::1', loopbackAllowed), { allowed: true, allowListed: true });
    assert.equal(judgeAddress('10.0.0.1', loopbackAllowed).allowed, false);
  });

  it('judges an IPv4-compatible address as the IPv6 address it is, never as the IPv4 one it carries', () => {
    for (const address of ['::7f00:1', '::127.0.0.1']) {
      assert.deepEqual(judgeAddress(address, loopbackAllowed), { allowed: false, reason: `${address} is not a public address (IPv4-compatible)` });
    }
    assert.deepEqual(judgeAddress('::127.0.0.1', addressPolicy(['::7f00:0/104'])), { allowed: true, allowListed: true });
    assert.deepEqual(judgeAddress('::', publicOnly), { allowed: false, reason: ':: is not a public address (unspecified)' });
    assert.deepEqual(judgeAddress('::1', publicOnly), { allowed: false, reason: '::1 is not a public address (loopback)' });
  });

  it('names a malformed allow-list entry, and a server does not start with one', () => {
    assert.throws(() => addressPolicy(['10.0.0.0/8', 'not-a-range']), /ATRIUM_EGRESS_ALLOW_CIDRS: "not-a-range"/);
    assert.throws(() => loadConfig({ ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8, 10.0.0.0/33' }), ConfigError);
    assert.deepEqual(loadConfig({ ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8, ::1/128' }).egressAllowCidrs, ['127.0.0.0/8', '::1/128']);
  });
});

describe('egress targets', () => {
  it('refuses URLs that can never be sent', async () => {
    assert.equal(await refusal(Promise.resolve().then(() => parseTargetUrl('/relative'))), 'the URL is not an absolute URL');
    assert.equal(await refusal(Promise.resolve().then(() => parseTargetUrl('ftp://example.com/x'))), 'the URL must use https, not ftp');
    assert.equal(
      await refusal(Promise.resolve().then(() => parseTargetUrl('https://user:pw@example.com/hook'))),
      'the URL must not carry a user name or password',
    );
  });

  it('refuses a name when any one of its addresses is not allowed', async () => {
    const resolver = resolverOf({ 'mixed.test': ['93.184.215.14', '10.0.0.7'], 'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    assert.match(await refusal(resolveTarget(parseTargetUrl('https://mixed.test/hook'), publicOnly, resolver)), /10\.0\.0\.7 is not a public address \(private network\)/);
    const ok = await resolveTarget(parseTargetUrl('https://public.test/hook'), publicOnly, resolver);
    assert.deepEqual([ok.hostname, ok.address, ok.family], ['public.test', '93.184.215.14', 4]);
    assert.match(await refusal(resolveTarget(parseTargetUrl('https://unknown.test/'), publicOnly, resolver)), /could not be resolved/);
  });

  it('judges IP literals, bracketed IPv6 included, without resolving', async () => {
    const never: Resolver = async () => assert.fail('an IP literal needs no lookup');
    assert.match(await refusal(resolveTarget(parseTargetUrl('https://[::ffff:127.0.0.1]/'), publicOnly, never)), /loopback/);
    assert.match(await refusal(resolveTarget(parseTargetUrl('https://0x7f000001/'), publicOnly, never)), /127\.0\.0\.1 is not a public address/);
    assert.equal((await resolveTarget(parseTargetUrl('https://[2606:4700:4700::1111]/'), publicOnly, never)).family, 6);
    assert.match(await refusal(resolveTarget(parseTargetUrl('https://[::a9fe:a9fe]/'), publicOnly, never)), /::a9fe:a9fe is not a public address \(IPv4-compatible\)/);
    assert.match(await refusal(resolveTarget(parseTargetUrl('https://[::8.8.8.8]/'), publicOnly, never)), /::808:808 is not a public address \(IPv4-compatible\)/);
  });

  it('refuses a name whose AAAA answer is IPv4-compatible, as the resolver prints it', async () => {
    // Node prints ::808:808 from DNS as `::8.8.8.8`, the notation ipaddr.js alone would read as ::ffff:8.8.8.8.
    const resolver = resolverOf({ 'compatible.test': ['93.184.215.14', '::8.8.8.8'] });
    assert.match(await refusal(resolveTarget(parseTargetUrl('https://compatible.test/hook'), publicOnly, resolver)), /::8\.8\.8\.8 is not a public address \(IPv4-compatible\)/);
  });

  it('accepts http only when every address is allow-listed', async () => {
    const resolver = resolverOf({ 'public.test': ['93.184.215.14'] });
    assert.match(await refusal(resolveTarget(parseTargetUrl('http://public.test/'), publicOnly, resolver)), /must use https/);
    assert.equal((await resolveTarget(parseTargetUrl('http://127.0.0.1:9/'), loopbackAllowed)).address, '127.0.0.1');
  });
});

describe('egress requests (loopback receivers)', () => {
  let server: Server;
  let port: number;
  const seen: Array<{ method?: string; url?: string; host?: string; body: string }> = [];
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/ok': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
    '/redirect': (_req, res) => res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end(),
    '/large': (_req, res) => res.writeHead(200).end('x'.repeat(4096)),
    // Holds the request unanswered: the client's time limit must end it.
    '/silent': () => undefined,
  };

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, host: req.headers.host, body });
        routes[req.url ?? '']?.(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends to an allow-listed receiver and returns its answer', async () => {
    const answer = await sendEgress({ url: `http://127.0.0.1:${port}/ok`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' }, loopbackAllowed, limits);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.toString(), '{"ok":true}');
    assert.deepEqual(seen.at(-1), { method: 'POST', url: '/ok', host: `127.0.0.1:${port}`, body: '{"a":1}' });
  });

  it('connects to the address it checked, under the name it was given', async () => {
    // The system resolver knows no `receiver.test`: the request reaches loopback only through the checked address.
    const resolver = resolverOf({ 'receiver.test': ['127.0.0.1'] });
    const answer = await sendEgress({ url: `http://receiver.test:${port}/ok`, method: 'GET' }, loopbackAllowed, limits, resolver);
    assert.equal(answer.status, 200);
    assert.equal(seen.at(-1)!.host, `receiver.test:${port}`);
  });

  it('sends nothing to a receiver outside the policy', async () => {
    const count = seen.length;
    assert.match(await refusal(sendEgress({ url: `http://127.0.0.1:${port}/ok`, method: 'POST', body: '{}' }, publicOnly, limits)), /loopback/);
    const rebinding = resolverOf({ 'rebind.test': ['127.0.0.1'] });
    assert.match(await refusal(sendEgress({ url: `https://rebind.test:${port}/ok`, method: 'GET' }, publicOnly, limits, rebinding)), /loopback/);
    assert.equal(seen.length, count);
  });

  it('returns a redirect as an answer and does not follow it', async () => {
    const answer = await sendEgress({ url: `http://127.0.0.1:${port}/redirect`, method: 'GET' }, loopbackAllowed, limits);
    assert.equal(answer.status, 302);
    assert.equal(seen.at(-1)!.url, '/redirect');
  });

  it('fails an answer longer than the limit, and one that does not come in time', async () => {
    await assert.rejects(sendEgress({ url: `http://127.0.0.1:${port}/large`, method: 'GET' }, loopbackAllowed, limits), (err: unknown) => {
      assert.ok(err instanceof EgressFailed);
      assert.equal(err.reason, 'the answer is longer than 1024 bytes');
      return true;
    });
    await assert.rejects(sendEgress({ url: `http://127.0.0.1:${port}/silent`, method: 'POST', body: '{}' }, loopbackAllowed, { ...limits, timeoutMs: 300 }), (err: unknown) => {
      assert.ok(err instanceof EgressFailed);
      assert.equal(err.reason, 'no complete answer within 300 ms');
      return true;
    });
  });

  it('keeps a connection per origin in a pool, each pinned to the address its one resolution checked', async () => {
    const connections: unknown[] = [];
    const onConnection = (socket: unknown) => connections.push(socket);
    server.on('connection', onConnection);
    const table: Record<string, string[]> = { 'pooled.test': ['127.0.0.1'] };
    const resolved: string[] = [];
    const resolver: Resolver = async (hostname) => {
      resolved.push(hostname);
      return resolverOf(table)(hostname);
    };
    let arrived!: () => void;
    const holding = new Promise<void>((resolve) => (arrived = resolve));
    let answerHeld!: () => void;
    routes['/held'] = (_req, res) => {
      answerHeld = () => res.writeHead(200).end('held');
      arrived();
    };
    const pool = new EgressPool();
    try {
      const first = await sendEgress({ url: `http://pooled.test:${port}/ok`, method: 'GET' }, loopbackAllowed, limits, resolver, pool);
      assert.equal(first.status, 200);
      const second = await sendEgress({ url: `http://pooled.test:${port}/ok`, method: 'GET' }, loopbackAllowed, limits, resolver, pool);
      assert.equal(second.status, 200);
      assert.equal(connections.length, 1, 'the second request reused the first connection');
      assert.equal(resolved.length, 1, 'a kept connection is not resolved again');

      // While the kept connection is busy, the next request needs a new one: it resolves anew, and is judged on what it gets.
      const held = sendEgress({ url: `http://pooled.test:${port}/held`, method: 'GET' }, loopbackAllowed, limits, resolver, pool);
      await holding;
      table['pooled.test'] = ['10.0.0.7'];
      assert.match(await refusal(sendEgress({ url: `http://pooled.test:${port}/ok`, method: 'GET' }, loopbackAllowed, limits, resolver, pool)), /10\.0\.0\.7 is not a public address \(private network\)/);
      assert.equal(resolved.length, 2);
      answerHeld();
      assert.equal((await held).body.toString(), 'held');

      // The kept connection stays pinned to the address checked when it was made.
      const third = await sendEgress({ url: `http://pooled.test:${port}/ok`, method: 'GET' }, loopbackAllowed, limits, resolver, pool);
      assert.equal(third.status, 200);
      assert.equal(resolved.length, 2);
      assert.equal(connections.length, 1);
    } finally {
      pool.destroy();
      server.off('connection', onConnection);
      delete routes['/held'];
    }
  });

  it('judges an IP literal before a pooled request is sent', async () => {
    const count = seen.length;
    const pool = new EgressPool();
    try {
      assert.match(await refusal(sendEgress({ url: `http://127.0.0.1:${port}/ok`, method: 'GET' }, publicOnly, limits, undefined, pool)), /loopback/);
    } finally {
      pool.destroy();
    }
    assert.equal(seen.length, count);
  });

  it('reports a refused connection as a failed attempt', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(sendEgress({ url: `http://127.0.0.1:${closedPort}/`, method: 'GET' }, loopbackAllowed, limits), (err: unknown) => {
      assert.ok(err instanceof EgressFailed);
      assert.equal(err.reason, 'the connection was refused');
      return true;
    });
  });
});
