import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { clientKey } from '../src/http/client-key.js';
import { CliRunner } from './support/cli.js';
import { McpCaller } from './support/mcp.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import type { StormPlan, StormReport } from './support/connection-storm.js';

/**
 * No client, and no small set of addresses, can starve the others
 * (docs/http.md, "Sharing the server fairly"). Long polls have a share of
 * their own, per address, per member and in all, beyond which they are
 * answered at once with `Retry-After`; a connection that arrives when the
 * server is full takes one back from whoever holds the most; and a long poll
 * whose client has gone stops being held at once.
 *
 * The clients here are real sockets from several loopback addresses
 * (127.0.0.2, 127.0.0.3, …: Linux routes all of 127/8 to the loopback
 * interface); the storm runs in a worker thread, so it does not share the
 * server's event loop. Nothing waits on time: a test holds what it holds, reads the
 * server's own gauges from /metrics, and checks what each request answered.
 */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Outcome = Answer | { error: string };

/** One request on its own connection from `localAddress`: its answer, or how the connection failed. */
function send(port: number, localAddress: string, method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown } = {}): { request: http.ClientRequest; outcome: Promise<Outcome> } {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const request = http.request({
    host: '127.0.0.1',
    port,
    localAddress,
    method,
    path,
    agent: false,
    headers: { ...opts.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
  });
  const outcome = new Promise<Outcome>((resolve) => {
    request.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.once('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    request.once('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
  });
  request.end(body);
  return { request, outcome };
}

function answered(outcome: Outcome, what: string): Answer {
  assert.ok(!('error' in outcome), `${what}: the connection failed (${'error' in outcome ? outcome.error : ''})`);
  return outcome;
}

/** A gauge or counter from /metrics (summed over its label sets), asked from `from`. */
async function metric(server: TestServer, name: string, from = '127.0.0.1'): Promise<number> {
  const res = answered(await send(port(server), from, 'GET', '/metrics').outcome, 'GET /metrics');
  assert.equal(res.status, 200);
  let sum = 0;
  let seen = false;
  for (const line of res.body.split('\n')) {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (match) {
      sum += Number(match[1]);
      seen = true;
    }
  }
  return seen ? sum : Number.NaN;
}

/** Asks /metrics until `check` holds of the metric; at most `tries` asks (each a real request, so no clock is involved). */
async function metricUntil(server: TestServer, name: string, check: (value: number) => boolean, tries = 500): Promise<number> {
  let value = Number.NaN;
  for (let i = 0; i < tries; i++) {
    value = await metric(server, name);
    if (check(value)) return value;
  }
  assert.fail(`${name} is ${value} after ${tries} reads`);
}

const port = (server: TestServer) => Number(new URL(server.url).port);
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

async function feedHead(server: TestServer, slug: string): Promise<number> {
  const res = await server.request('GET', `/v0/spaces/${slug}/events?newest=1`);
  assert.equal(res.status, 200);
  return res.body.cursor as number;
}

describe('clientKey: the client an address stands for', () => {
  it('counts IPv4 addresses one by one, IPv4-mapped IPv6 as the IPv4 they carry, and IPv6 by its /64', () => {
    assert.equal(clientKey('127.0.0.2'), '127.0.0.2');
    assert.equal(clientKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.notEqual(clientKey('2001:db8:1:3::1'), clientKey('2001:db8:1:2::1'));
    assert.equal(clientKey(undefined), 'unknown');
  });
});

for (const backend of backends()) {
  describe(`Sharing the server fairly (${backend})`, () => {
    describe('with the default limits, under a storm of long polls and idle sockets', () => {
      let server: TestServer;
      let ana: { handle: string; session: string };

      before(async () => {
        server = await startServer(backend, { env: { ATRIUM_METRICS: 'on' } });
        ana = await server.human('ana');
        await activeSpace(server, ana.session, 'plaza');
        assert.equal((await server.request('POST', '/v0/spaces/plaza/join', { token: ana.session })).status, 200);
      });
      after(() => server.stop());

      it("serves an innocent client's reads and writes while five addresses hold thousands of long polls and reconnecting idle sockets", async (t) => {
        const attackers = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'];
        /** Twenty reads and twenty writes of an innocent client, each on a new connection; their latencies. */
        const innocentRounds = async (when: string): Promise<string> => {
          const reads: number[] = [];
          const writes: number[] = [];
          for (let i = 0; i < 20; i++) {
            let started = performance.now();
            const read = answered(await send(port(server), '127.0.0.1', 'GET', '/v0/spaces/plaza').outcome, `an innocent read ${when}`);
            reads.push(performance.now() - started);
            assert.equal(read.status, 200);
            started = performance.now();
            const write = answered(
              await send(port(server), '127.0.0.1', 'POST', '/v0/spaces/plaza/channels/general/messages', {
                headers: { authorization: `Bearer ${ana.session}` },
                body: { body: `still here ${i}` },
              }).outcome,
              `an innocent write ${when}`,
            );
            writes.push(performance.now() - started);
            assert.equal(write.status, 201, write.body);
          }
          const ms = (values: number[], p: number) => `${percentile(values, p).toFixed(1)} ms`;
          return `read p50 ${ms(reads, 50)}, p99 ${ms(reads, 99)}; write p50 ${ms(writes, 50)}, p99 ${ms(writes, 99)}`;
        };
        const quiet = await innocentRounds('before the storm');
        const since = await feedHead(server, 'plaza');
        const plan: StormPlan = {
          port: port(server),
          addresses: attackers,
          pollPath: `/v0/spaces/plaza/events?since=${since}&wait=30`,
          pollsPerAddress: 250,
          idlePerAddress: 250,
          maxReconnects: 20_000,
        };
        // The worker registers tsx before importing the TypeScript module, as the mention parser's workers do.
        const script = JSON.stringify(new URL('./support/connection-storm.ts', import.meta.url).href);
        const storm = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${script}); });`, { eval: true, workerData: plan });
        const report = (what: 'report' | 'stop') =>
          new Promise<StormReport>((resolve) => {
            storm.once('message', resolve);
            storm.postMessage(what);
          });
        let stopped = false;
        try {
          // The storm has filled every connection the server takes (768 by default).
          await metricUntil(server, 'atrium_http_connections', (open) => open >= 767);
          // Long polls hold no more than their share: 64 per address, so 320 of the 1,250 sent.
          // The storm sends its long polls first and its idle sockets once one poll was turned away.
          const heldPolls = await metricUntil(server, 'atrium_feed_waiters', (held) => held > 0);
          assert.ok(heldPolls > 0 && heldPolls <= attackers.length * 64, `${heldPolls} long polls are held`);

          const during = await innocentRounds('under the storm');
          // /metrics too: an operator can still see what is going on.
          assert.ok((await metric(server, 'atrium_http_connections')) <= 768);

          // The posts woke the long polls that were held; the rest were told to come back later.
          let seen = await report('report');
          for (let i = 0; i < 500 && seen.withEvents === 0; i++) {
            answered(await send(port(server), '127.0.0.1', 'GET', '/healthz').outcome, 'GET /healthz');
            seen = await report('report');
          }
          const final = await report('stop');
          stopped = true;
          assert.ok(final.withEvents > 0, 'the posts woke the long polls that were held');
          assert.ok(final.toldToComeBack > 0, 'long polls over their share were answered at once with Retry-After');
          const turnedAway = await metric(server, 'atrium_http_connections_turned_away_total');
          t.diagnostic(`innocent client, quiet server: ${quiet}`);
          t.diagnostic(`innocent client under the storm: ${during}`);
          t.diagnostic(
            `storm: ${final.reconnects} reconnects, ${turnedAway} connections turned away or taken back; long polls: ${final.withEvents} answered with the posts, ` +
              `${final.toldToComeBack} answered at once with Retry-After, ${final.refused} refused, ${final.otherAnswers + final.open} otherwise`,
          );
        } finally {
          if (!stopped) await report('stop');
          await storm.terminate();
        }
      });
    });

    describe('long polls', () => {
      let server: TestServer;
      let ana: { handle: string; session: string };
      let bob: { handle: string; session: string };
      let since: number;

      before(async () => {
        server = await startServer(backend, {
          env: { ATRIUM_METRICS: 'on', ATRIUM_MAX_LONG_POLLS: '10', ATRIUM_MAX_LONG_POLLS_PER_ADDRESS: '3', ATRIUM_MAX_LONG_POLLS_PER_MEMBER: '4' },
        });
        ana = await server.human('ana');
        bob = await server.human('bob');
        await activeSpace(server, ana.session, 'porch');
        for (const who of [ana, bob]) assert.equal((await server.request('POST', '/v0/spaces/porch/join', { token: who.session })).status, 200);
        since = await feedHead(server, 'porch');
      });
      after(() => server.stop());

      const poll = (from: string, headers: Record<string, string> = {}) => send(port(server), from, 'GET', `/v0/spaces/porch/events?since=${since}&wait=30`, { headers });
      const post = async (body: string) => {
        const res = await server.request('POST', '/v0/spaces/porch/channels/general/messages', { token: bob.session, body: { body } });
        assert.equal(res.status, 201);
        since = await feedHead(server, 'porch');
      };

      it('stops holding a long poll as soon as its client goes away', async () => {
        const polls = Array.from({ length: 3 }, () => poll('127.0.0.20'));
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 3);
        for (const p of polls) p.request.destroy();
        // Gone within a few reads of /metrics, not when the 30-second wait would have ended.
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 0, 50);
        assert.equal(await metric(server, 'atrium_long_polls_held'), 0);
      });

      it('answers a client over its share of long polls at once, as an ordinary poll with Retry-After, and holds the others', async () => {
        since = await feedHead(server, 'porch');
        const mine = Array.from({ length: 3 }, () => poll('127.0.0.21'));
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 3);
        const over = answered(await poll('127.0.0.21').outcome, 'a fourth long poll');
        assert.equal(over.status, 200);
        assert.deepEqual(JSON.parse(over.body).events, []);
        assert.equal(JSON.parse(over.body).cursor, since);
        assert.equal(over.headers['retry-after'], '5');
        // Another address still has its share.
        const theirs = poll('127.0.0.22');
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 4);
        await post('for everyone waiting');
        for (const p of [...mine, theirs]) {
          const page = answered(await p.outcome, 'a held long poll');
          assert.equal(JSON.parse(page.body).events[0].payload.body, 'for everyone waiting');
          assert.equal(page.headers['retry-after'], undefined);
        }
      });

      it("counts a member's long polls wherever they come from, over MCP too", async () => {
        since = await feedHead(server, 'porch');
        const auth = { authorization: `Bearer ${ana.session}` };
        const held = [poll('127.0.0.23', auth), poll('127.0.0.23', auth), poll('127.0.0.24', auth), poll('127.0.0.24', auth)];
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 4);
        const fifth = answered(await poll('127.0.0.25', auth).outcome, "the member's fifth long poll");
        assert.equal(fifth.headers['retry-after'], '5');
        // Over MCP the same member's wait is not held either: the page comes back at once, empty.
        const mcp = await McpCaller.connect(server, ana.session);
        try {
          const { json } = await mcp.ok('list_event_page', { slug: 'porch', since, wait: 30 });
          assert.deepEqual((json as { events: unknown[] }).events, []);
        } finally {
          await mcp.client.close();
        }
        // Someone else, from an address already in use, is still held.
        const other = poll('127.0.0.23', { authorization: `Bearer ${bob.session}` });
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 5);
        await post('woken');
        for (const p of [...held, other]) assert.equal(JSON.parse(answered(await p.outcome, 'a held long poll').body).events.length, 1);
      });

      it('keeps a reserve no long polls can take: beyond ATRIUM_MAX_LONG_POLLS they are answered at once', async () => {
        since = await feedHead(server, 'porch');
        const held = Array.from({ length: 10 }, (_, i) => poll(`127.0.1.${i + 1}`));
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 10);
        const eleventh = answered(await poll('127.0.1.99').outcome, 'an eleventh long poll');
        assert.equal(eleventh.headers['retry-after'], '5');
        assert.equal(await metric(server, 'atrium_feed_waiters'), 10);
        assert.equal(await metric(server, 'atrium_long_polls_held'), 10);
        await post('the end of the wait');
        for (const p of held) assert.equal(answered(await p.outcome, 'a held long poll').status, 200);
      });

      it("has the CLI's tail wait as long as Retry-After says before it polls again", async () => {
        since = await feedHead(server, 'porch');
        // This address's share (3) is taken, so each of the tail's long polls is answered at once.
        const mine = Array.from({ length: 3 }, () => poll('127.0.0.1'));
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 3);
        const polled: number[] = [];
        let twice: () => void = () => undefined;
        const polledTwice = new Promise<void>((resolve) => (twice = resolve));
        const onRequest = (request: http.IncomingMessage) => {
          if (!/^\/v0\/spaces\/porch\/events\?since=/.test(request.url ?? '')) return;
          polled.push(Date.now());
          if (polled.length === 2) twice();
        };
        const http1 = server.app.http.server;
        http1.on('request', onRequest);
        const cli = new CliRunner(server.url);
        try {
          const tail = cli.spawn(['events', 'porch', '--follow', '--newest', '1']);
          await polledTwice;
          assert.ok(polled[1]! - polled[0]! >= 4000, `the tail polled again after ${polled[1]! - polled[0]!} ms, not the 5 s it was asked to wait`);
          tail.child.kill('SIGINT');
          assert.equal((await tail.exited).code, 0);
        } finally {
          http1.off('request', onRequest);
          await cli.cleanup();
          for (const p of mine) p.request.destroy();
        }
      });
    });

    describe('behind a trusted proxy', () => {
      let server: TestServer;
      let ana: { handle: string; session: string };

      before(async () => {
        server = await startServer(backend, {
          env: { ATRIUM_METRICS: 'on', ATRIUM_TRUST_PROXY: '127.0.0.1', ATRIUM_MAX_LONG_POLLS_PER_ADDRESS: '3' },
        });
        ana = await server.human('ana');
        await activeSpace(server, ana.session, 'yard');
      });
      after(() => server.stop());

      it('gives each forwarded client address its own share of long polls', async () => {
        const since = await feedHead(server, 'yard');
        const poll = (forwardedFor: string) =>
          send(port(server), '127.0.0.1', 'GET', `/v0/spaces/yard/events?since=${since}&wait=30`, { headers: { 'x-forwarded-for': forwardedFor } });
        const first = Array.from({ length: 3 }, () => poll('203.0.113.7'));
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 3);
        const over = answered(await poll('203.0.113.7').outcome, "one forwarded client's fourth long poll");
        assert.equal(over.headers['retry-after'], '5');
        const other = poll('203.0.113.8');
        await metricUntil(server, 'atrium_feed_waiters', (n) => n === 4);
        const res = await server.request('POST', '/v0/spaces/yard/join', { token: ana.session });
        assert.equal(res.status, 200);
        for (const p of [...first, other]) assert.equal(JSON.parse(answered(await p.outcome, 'a held long poll').body).events.length, 1);
      });
    });
  });
}
