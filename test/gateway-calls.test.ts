import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGatewayConfig } from '../src/gateway/config.js';
import { callHoldBytes } from '../src/gateway/limits.js';
import type { CallResult, LedgerRecord } from '../src/shared/gateway-wire.js';
import { answers, destinationFor, type DestinationEntry, gatewayBackends, startGateway, startUpstream, ticketRequest, type TestGateway, type Upstream } from './support/gateway.js';

const forRun = (ledger: LedgerRecord[], runId: string) => ledger.filter((r) => r.run_id === runId);

const SECRET = 'sk-provider-secret-0123456789';
const MiB = 1024 * 1024;

/** A destinations file with these entries, in a fresh directory; its path. */
function writeDestinations(destinations: DestinationEntry[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'atrium-destinations-')), 'destinations.json');
  writeFileSync(path, JSON.stringify({ destinations }));
  return path;
}

for (const backend of gatewayBackends()) {
  describe(`credential gateway calls (${backend})`, () => {
    let upstream: Upstream;
    let gw: TestGateway;
    before(async () => {
      upstream = await startUpstream();
      gw = await startGateway({
        backend,
        destinations: [destinationFor(upstream, { methods: ['GET', 'HEAD', 'POST'], responseHeaders: ['content-type', 'x-request-id', 'location', 'x-multi'] })],
        // Everything the gateway can log, so that the test can show none of it holds a secret.
        env: { PROVIDER_KEY: SECRET, ATRIUM_LOG_LEVEL: 'trace' },
      });
    });
    after(async () => {
      await gw?.stop();
      await upstream?.stop();
    });

    it('brokers the exact request with the credential; neither the answer nor the ledger holds the credential', async () => {
      upstream.answer('/v1/forecast', answers.json({ rain: true }, 200, { 'x-request-id': 'prov-77', 'x-secret-internal': 'no', 'content-type': 'application/json' }));
      const req = ticketRequest(upstream.url('/v1/forecast?city=Paris&units=metric'), {
        request: { method: 'POST', headers: { 'content-type': 'application/json', 'x-trace': 't-1' }, body_base64: Buffer.from('{"q":1}').toString('base64') },
      });
      const issued = await gw.issue(req);
      assert.equal(issued.status, 201, JSON.stringify(issued.body));
      assert.deepEqual(Object.keys(issued.body).sort(), ['expires_ts', 'max_response_bytes', 'ticket']);
      assert.equal(issued.body.max_response_bytes, 65536, 'the destination’s answer limit, so the service can make room before using the ticket');

      const before = upstream.received.length;
      const result = await gw.call(issued.body.ticket);
      assert.equal(result.status, 200, JSON.stringify(result.body));
      assert.deepEqual(result.body, {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': 'prov-77' },
        bodyBase64: Buffer.from('{"rain":true}').toString('base64'),
        provider_request_id: 'prov-77',
      });

      const got = upstream.received[before]!;
      assert.equal(got.method, 'POST');
      assert.equal(got.url, '/v1/forecast?city=Paris&units=metric');
      assert.equal(got.body.toString(), '{"q":1}');
      assert.equal(got.headers.authorization, `Bearer ${SECRET}`);
      // Exactly the bound headers, the credential, and what node adds for the connection.
      const names = got.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()).sort();
      assert.deepEqual(names, ['authorization', 'connection', 'content-length', 'content-type', 'host', 'x-trace']);

      const ledger = await gw.ledger();
      const mine = ledger.filter((r) => r.run_id === req.run_id);
      assert.deepEqual(mine.map((r) => r.decision), ['issued', 'started', 'brokered']);
      const brokered = mine[2]!;
      assert.equal(brokered.status, 200);
      assert.equal(brokered.request_bytes, 7);
      assert.equal(brokered.response_bytes, 13);
      assert.equal(brokered.provider_request_id, 'prov-77');
      assert.equal(typeof brokered.latency_ms, 'number');
      for (const r of mine) {
        assert.equal(r.space, 'garden');
        assert.equal(r.connection_id, 'weather');
        assert.equal(r.member, 'scout');
        assert.equal(r.member_type, 'agent');
        assert.equal(r.operator, 'ada');
        assert.equal(r.purpose, 'Check the forecast');
        assert.equal(r.request_id, req.request_id);
        assert.equal(r.destination_id, 'provider');
        assert.equal(r.method, 'POST');
        assert.equal(r.host, new URL(upstream.origin).host);
        assert.equal(r.path, '/v1/forecast');
        assert.match(r.ticket_fingerprint!, /^[0-9a-f]{64}$/);
      }
      const text = JSON.stringify(ledger) + JSON.stringify(result.body);
      for (const leaked of [SECRET, issued.body.ticket, 'Paris', 't-1', '{"q":1}', Buffer.from('{"q":1}').toString('base64')]) {
        assert.ok(!text.includes(leaked), `ledger or answer holds ${leaked}`);
      }
      const log = gw.process!.stdout + gw.process!.stderr;
      assert.match(log, /"path":"\/v1\/call","status":200/, 'the gateway logs each request by path and status');
      for (const leaked of [SECRET, issued.body.ticket, gw.issuerKey, 'Paris', 't-1', Buffer.from('{"q":1}').toString('base64')]) {
        assert.ok(!log.includes(leaked), `the gateway log holds ${leaked}`);
      }
    });

    it('joins a repeated response header with ", " and drops headers the destination does not allow', async () => {
      upstream.answer('/v1/multi', answers.json({}, 201, { 'x-multi': ['a', 'b'], 'x-request-id': 'm-1', 'set-cookie': ['s=1', 't=2'], 'x-other': 'no' }));
      const result = await gw.call((await gw.issue(ticketRequest(upstream.url('/v1/multi')))).body.ticket);
      assert.equal(result.body.status, 201);
      assert.deepEqual(result.body.headers, { 'content-type': 'application/json', 'x-multi': 'a, b', 'x-request-id': 'm-1' });
    });

    it('keeps its connection to an upstream open from one call to the next', async () => {
      const tickets = [];
      for (const path of ['/v1/kept-1', '/v1/kept-2', '/v1/kept-3']) tickets.push((await gw.issue(ticketRequest(upstream.url(path)))).body.ticket);
      const before = upstream.connections();
      for (const ticket of tickets) assert.equal((await gw.call(ticket)).body.status, 200);
      assert.ok(upstream.connections() - before <= 1, `three calls in turn opened ${upstream.connections() - before} connections`);
    });

    it('refuses a second use of a ticket with 409 ticket_replayed, recorded as denied with its bound fields', async () => {
      const req = ticketRequest(upstream.url('/v1/once'));
      const issued = await gw.issue(req);
      assert.equal(issued.status, 201);
      assert.equal((await gw.call(issued.body.ticket)).status, 200);
      const sent = upstream.received.filter((r) => r.url === '/v1/once').length;
      const again = await gw.call(issued.body.ticket);
      assert.equal(again.status, 409);
      assert.deepEqual(again.body, { code: 'ticket_replayed', detail: again.body.detail });
      assert.equal(upstream.received.filter((r) => r.url === '/v1/once').length, sent, 'nothing more reached the upstream');
      const mine = forRun(await gw.ledger(), req.run_id);
      assert.deepEqual(mine.map((r) => [r.decision, r.error_code]), [['issued', null], ['started', null], ['brokered', null], ['denied', 'ticket_replayed']]);
      const denied = mine[3]!;
      assert.equal(denied.member, 'scout');
      assert.equal(denied.connection_id, 'weather');
      assert.equal(denied.path, '/v1/once');
      assert.equal(denied.ticket_fingerprint, mine[0]!.ticket_fingerprint);
    });

    it('lets exactly one of two simultaneous uses of one ticket through', async () => {
      const req = ticketRequest(upstream.url('/v1/race'));
      const issued = await gw.issue(req);
      const results = await Promise.all([gw.call(issued.body.ticket), gw.call(issued.body.ticket)]);
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
      assert.equal(upstream.received.filter((r) => r.url === '/v1/race').length, 1);
      const decisions = forRun(await gw.ledger(), req.run_id).map((r) => r.decision);
      assert.equal(decisions.filter((d) => d === 'started').length, 1);
      assert.equal(decisions.filter((d) => d === 'denied').length, 1);
    });

    it('returns a redirect as the result and does not follow it', async () => {
      upstream.answer('/v1/moved', answers.redirect(upstream.url('/v1/elsewhere')));
      const req = ticketRequest(upstream.url('/v1/moved'));
      const result = await gw.call((await gw.issue(req)).body.ticket);
      assert.equal(result.status, 200);
      assert.equal(result.body.status, 302);
      assert.equal(result.body.headers.location, upstream.url('/v1/elsewhere'));
      assert.equal(upstream.received.filter((r) => r.url === '/v1/elsewhere').length, 0, 'the redirect was not followed');
      assert.equal(forRun(await gw.ledger(), req.run_id).at(-1)!.status, 302);
    });

    it('sends a HEAD request and returns its headers with an empty body', async () => {
      const req = ticketRequest(upstream.url('/v1/head'), { request: { method: 'HEAD' } });
      upstream.answer('/v1/head', (_req, res) => void res.writeHead(200, { 'x-request-id': 'h-1', 'content-length': '42' }).end());
      const issued = await gw.issue(req);
      assert.equal(issued.status, 201, JSON.stringify(issued.body));
      const result = await gw.call(issued.body.ticket);
      assert.equal(result.status, 200, JSON.stringify(result.body));
      assert.deepEqual(result.body, { status: 200, headers: { 'x-request-id': 'h-1' }, bodyBase64: '', provider_request_id: 'h-1' });
      assert.equal(upstream.received.at(-1)!.method, 'HEAD');
    });

    it('refuses an answer longer than maxResponseBytes with 502 response_too_large, never truncated', async () => {
      upstream.answer('/v1/big', answers.large(65537));
      const req = ticketRequest(upstream.url('/v1/big'));
      const result = await gw.call((await gw.issue(req)).body.ticket);
      assert.equal(result.status, 502);
      assert.deepEqual(Object.keys(result.body).sort(), ['code', 'detail']);
      assert.equal(result.body.code, 'response_too_large');
      const last = forRun(await gw.ledger(), req.run_id).at(-1)!;
      assert.deepEqual([last.decision, last.error_code], ['error', 'response_too_large']);
    });

    it('answers exactly maxResponseBytes', async () => {
      upstream.answer('/v1/exact', answers.large(65536));
      const result = await gw.call((await gw.issue(ticketRequest(upstream.url('/v1/exact')))).body.ticket);
      assert.equal(result.status, 200);
      assert.equal(Buffer.from(result.body.bodyBase64, 'base64').length, 65536);
    });

    it('reports a refused connection as 502 upstream_error, recorded as error', async () => {
      const closed = await startUpstream();
      const origin = closed.origin;
      await closed.stop();
      const gw2 = await startGateway({ backend, inProcess: true, destinations: [destinationFor(closed, { origins: [origin] })], env: { PROVIDER_KEY: SECRET } });
      try {
        const req = ticketRequest(`${origin}/v1/x`);
        const result = await gw2.call((await gw2.issue(req)).body.ticket);
        assert.equal(result.status, 502);
        assert.equal(result.body.code, 'upstream_error');
        assert.deepEqual((await gw2.ledger()).map((r) => [r.decision, r.error_code]), [['issued', null], ['started', null], ['error', 'upstream_error']]);
      } finally {
        await gw2.stop();
      }
    });
  });

  describe(`credential gateway limits and addresses (${backend})`, () => {
    let upstream: Upstream;
    after(() => upstream?.stop());
    before(async () => {
      upstream = await startUpstream();
    });

    it('stops waiting at timeoutMs with 504 upstream_timeout', async () => {
      const gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream, { timeoutMs: 200 })], env: { PROVIDER_KEY: SECRET } });
      try {
        upstream.answer('/v1/slow', answers.hang());
        const req = ticketRequest(upstream.url('/v1/slow'));
        const result = await gw.call((await gw.issue(req)).body.ticket);
        assert.equal(result.status, 504);
        assert.equal(result.body.code, 'upstream_timeout');
        assert.equal(upstream.received.filter((r) => r.url === '/v1/slow').length, 1, 'the request did reach the upstream');
        const last = (await gw.ledger()).at(-1)!;
        assert.deepEqual([last.decision, last.error_code, last.run_id], ['error', 'upstream_timeout', req.run_id]);
      } finally {
        await gw.stop();
      }
    });

    it('refuses a loopback destination when loopback is not allow-listed: 403 address_denied, nothing sent', async () => {
      const gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET, ATRIUM_EGRESS_ALLOW_CIDRS: '' } });
      try {
        const before = upstream.received.length;
        const req = ticketRequest(upstream.url('/v1/inside'));
        const issued = await gw.issue(req);
        assert.equal(issued.status, 201, 'issuance never resolves or checks addresses');
        const result = await gw.call(issued.body.ticket);
        assert.equal(result.status, 403);
        assert.equal(result.body.code, 'address_denied');
        // The words name the address and why it is refused.
        assert.match(result.body.detail ?? '', /127\.0\.0\.1 is not a public address \(loopback\)/);
        assert.equal(upstream.received.length, before);
        assert.deepEqual((await gw.ledger()).map((r) => [r.decision, r.error_code]), [['issued', null], ['started', null], ['denied', 'address_denied']]);
      } finally {
        await gw.stop();
      }
    });

    it('refuses an IPv4-compatible destination (::/96) though the IPv4 address it carries is allow-listed: 403 address_denied', async () => {
      const origin = `http://[::7f00:1]:${new URL(upstream.origin).port}`;
      const gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream, { origins: [origin] })], env: { PROVIDER_KEY: SECRET } });
      try {
        const before = upstream.received.length;
        const issued = await gw.issue(ticketRequest(`${origin}/v1/inside`));
        assert.equal(issued.status, 201, JSON.stringify(issued.body));
        const result = await gw.call(issued.body.ticket);
        assert.equal(result.status, 403);
        assert.equal(result.body.code, 'address_denied');
        // The words name the address and why it is refused.
        assert.equal(result.body.detail, '::7f00:1 is not a public address (IPv4-compatible)');
        assert.equal(upstream.received.length, before);
      } finally {
        await gw.stop();
      }
    });

    it('refuses an expired ticket with 401 ticket_expired, recorded as denied; nothing sent', async () => {
      let now = new Date('2026-05-01T12:00:00Z');
      const gw = await startGateway({ backend, inProcess: true, now: () => now, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
      try {
        const before = upstream.received.length;
        const req = ticketRequest(upstream.url('/v1/late'), { ttl_seconds: 30 });
        const issued = await gw.issue(req);
        assert.equal(issued.body.expires_ts, '2026-05-01T12:00:30.000Z');
        now = new Date('2026-05-01T12:00:31Z');
        const result = await gw.call(issued.body.ticket);
        assert.equal(result.status, 401);
        assert.equal(result.body.code, 'ticket_expired');
        assert.equal(upstream.received.length, before);
        assert.deepEqual((await gw.ledger()).map((r) => [r.decision, r.error_code, r.run_id]), [['issued', null, req.run_id], ['denied', 'ticket_expired', req.run_id]]);
      } finally {
        await gw.stop();
      }
    });

    it('returns no provider request id when its header is not among the allowed response headers', async () => {
      const gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream, { responseHeaders: ['content-type'] })], env: { PROVIDER_KEY: SECRET } });
      try {
        upstream.answer('/v1/id', answers.json({}, 200, { 'x-request-id': 'hidden-id' }));
        const req = ticketRequest(upstream.url('/v1/id'));
        const result = await gw.call((await gw.issue(req)).body.ticket);
        assert.equal(result.body.provider_request_id, null);
        assert.deepEqual(result.body.headers, { 'content-type': 'application/json' });
        assert.equal((await gw.ledger()).at(-1)!.provider_request_id, null);
      } finally {
        await gw.stop();
      }
    });

    it('caps a ticket at five minutes', async () => {
      const now = new Date('2026-05-01T12:00:00Z');
      const gw = await startGateway({ backend, inProcess: true, now: () => now, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
      try {
        const tooLong = await gw.issue({ ...ticketRequest(upstream.url('/v1/x')), ttl_seconds: 301 });
        assert.equal(tooLong.status, 422);
        assert.equal(tooLong.body.code, 'invalid_request');
        const longest = await gw.issue(ticketRequest(upstream.url('/v1/x'), { ttl_seconds: 300 }));
        assert.equal(longest.body.expires_ts, '2026-05-01T12:05:00.000Z');
      } finally {
        await gw.stop();
      }
    });
  });

  describe(`credential gateway calls in flight (${backend})`, () => {
    let upstream: Upstream;
    /** Answers the upstream holds back until the test lets them go. */
    let held: ServerResponse[];
    before(async () => {
      upstream = await startUpstream();
      upstream.answer('/v1/held', (_req, res) => void held.push(res));
    });
    beforeEach(() => {
      held = [];
    });
    after(() => upstream?.stop());

    /** Starts a call with `ticket` and resolves, once it is held at the upstream, with its answer to come. */
    async function inFlight(gw: TestGateway, ticket: string): Promise<{ answer: Promise<Response> }> {
      const arrived = upstream.waitFor(upstream.received.length + 1);
      const answer = fetch(`${gw.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ticket }) });
      await arrived;
      return { answer };
    }

    const use = (gw: TestGateway, ticket: string) => fetch(`${gw.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ticket }) });

    async function refusedForLoad(res: Response, code: 'too_many_calls' | 'gateway_busy', status: number): Promise<void> {
      assert.equal(res.status, status);
      assert.equal(res.headers.get('retry-after'), '1');
      const body = (await res.json()) as { code: string; detail: string };
      assert.deepEqual(Object.keys(body).sort(), ['code', 'detail']);
      assert.equal(body.code, code);
    }

    const release = () => {
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{"done":true}');
    };

    it('bounds the calls one member has in flight: 429 too_many_calls with Retry-After, the ticket left usable', async () => {
      const gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET, ATRIUM_CREDENTIAL_CALLS_PER_MEMBER: '1' } });
      try {
        const first = ticketRequest(upstream.url('/v1/held'));
        const second = ticketRequest(upstream.url('/v1/held'), { connection_id: 'other' });
        const other = ticketRequest(upstream.url('/v1/held'), { member: 'wren' });
        const [a, b, c] = await Promise.all([first, second, other].map(async (r) => (await gw.issue(r)).body.ticket));
        const answerA = await inFlight(gw, a!);
        const sent = upstream.received.length;
        await refusedForLoad(await use(gw, b!), 'too_many_calls', 429);
        assert.equal(upstream.received.length, sent, 'the refused call sent nothing');
        const answerC = await inFlight(gw, c!);
        release();
        assert.equal((await answerA.answer).status, 200);
        assert.equal((await answerC.answer).status, 200);
        assert.deepEqual(forRun(await gw.ledger(), second.run_id).map((r) => r.decision), ['issued'], 'the refusal is not recorded and used nothing up');
        const again = await inFlight(gw, b!);
        release();
        assert.equal((await again.answer).status, 200, 'the same ticket works once the member has room');
      } finally {
        await gw.stop();
      }
    });

    it('bounds the calls one connection has in flight, whoever makes them', async () => {
      const gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET, ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION: '2' } });
      try {
        const tickets = await Promise.all(
          [
            { member: 'a' },
            { member: 'b' },
            { member: 'c' },
            { member: 'c', space: 'orchard' },
          ].map(async (who) => (await gw.issue(ticketRequest(upstream.url('/v1/held'), who))).body.ticket),
        );
        const calls = [await inFlight(gw, tickets[0]!), await inFlight(gw, tickets[1]!)];
        await refusedForLoad(await use(gw, tickets[2]!), 'too_many_calls', 429);
        calls.push(await inFlight(gw, tickets[3]!));
        release();
        for (const call of calls) assert.equal((await call.answer).status, 200);
      } finally {
        await gw.stop();
      }
    });

    it('bounds the answers it holds at once: 503 gateway_busy with Retry-After beyond ATRIUM_GATEWAY_BUFFER_BYTES', async () => {
      // Room for two calls to this destination, each counted at what it may hold (twice its answer limit and the writing room).
      const budget = 2 * callHoldBytes(1000) + 500;
      const gw = await startGateway({
        backend,
        inProcess: true,
        destinations: [destinationFor(upstream, { maxResponseBytes: 1000 })],
        env: { PROVIDER_KEY: SECRET, ATRIUM_GATEWAY_BUFFER_BYTES: String(budget) },
      });
      try {
        const tickets = await Promise.all(['a', 'b', 'c'].map(async (member) => (await gw.issue(ticketRequest(upstream.url('/v1/held'), { member, connection_id: member }))).body.ticket));
        const calls = [await inFlight(gw, tickets[0]!), await inFlight(gw, tickets[1]!)];
        await refusedForLoad(await use(gw, tickets[2]!), 'gateway_busy', 503);
        assert.deepEqual(gw.gateway!.ctx.limits.held(), { calls: 2, bytes: 2 * callHoldBytes(1000), peakBytes: 2 * callHoldBytes(1000) });
        release();
        for (const call of calls) assert.equal((await call.answer).status, 200);
        const later = await inFlight(gw, tickets[2]!);
        release();
        assert.equal((await later.answer).status, 200, 'room again once the answers are written out');
        assert.ok(gw.gateway!.ctx.limits.held().peakBytes <= budget);
      } finally {
        await gw.stop();
      }
    });

    it('counts what several members’ large answers hold together, whoever asks: beyond the budget 503, the admitted answered whole', async () => {
      const limit = 4 * MiB;
      const size = 4 * MiB - 1000;
      const budget = 3 * callHoldBytes(limit);
      const gw = await startGateway({
        backend,
        inProcess: true,
        destinations: [destinationFor(upstream, { maxResponseBytes: limit })],
        env: { PROVIDER_KEY: SECRET, ATRIUM_GATEWAY_BUFFER_BYTES: String(budget), ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION: '100' },
      });
      // The upstream holds each call until every one has reached it or been refused, then answers them all; later calls at once.
      const waiting: ServerResponse[] = [];
      const refusals: Response[] = [];
      let holding = true;
      let allIn!: () => void;
      const everyCallIn = new Promise<void>((resolve) => (allIn = resolve));
      const settle = () => {
        if (waiting.length + refusals.length === 6) allIn();
      };
      const big = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(size, 'z'));
      upstream.answer('/v1/big', (_req, res) => {
        if (!holding) return big(res);
        waiting.push(res);
        settle();
      });
      try {
        // Three members, two calls each, over two connections: each within its member's and its connection's bounds.
        const who = ['ada', 'ada', 'bo', 'bo', 'cy', 'cy'].map((member, i) => ({ member, connection_id: `c${i % 2}` }));
        const tickets = await Promise.all(who.map(async (w) => (await gw.issue(ticketRequest(upstream.url('/v1/big'), w))).body.ticket));
        const calls = tickets.map((ticket, i) =>
          use(gw, ticket).then((res) => {
            if (res.status !== 200) {
              refusals.push(res);
              settle();
            }
            return { i, res };
          }),
        );
        await everyCallIn;
        assert.deepEqual([waiting.length, refusals.length], [3, 3], 'three answers fit the budget');
        assert.deepEqual(gw.gateway!.ctx.limits.held(), { calls: 3, bytes: 3 * callHoldBytes(limit), peakBytes: 3 * callHoldBytes(limit) });
        for (const res of refusals) await refusedForLoad(res, 'gateway_busy', 503);
        holding = false;
        for (const res of waiting.splice(0)) big(res);
        const results = await Promise.all(calls);
        const admitted = results.filter(({ res }) => res.status === 200);
        assert.equal(admitted.length, 3);
        for (const { res } of admitted) {
          const body = (await res.json()) as CallResult;
          assert.equal(Buffer.from(body.bodyBase64, 'base64').length, size, 'answered whole');
        }
        assert.ok(gw.gateway!.ctx.limits.held().peakBytes <= budget, 'never more counted than the budget');
        // A ticket refused for room was not used up: presented again, it is answered.
        for (const { i } of results.filter(({ res }) => res.status !== 200)) {
          const again = await use(gw, tickets[i]!);
          assert.equal(again.status, 200);
          assert.equal(Buffer.from(((await again.json()) as CallResult).bodyBase64, 'base64').length, size);
        }
        assert.ok(gw.gateway!.ctx.limits.held().peakBytes <= budget, 'never more counted than the budget');
      } finally {
        await gw.stop();
      }
    });

    it('derives its default budget from the destinations’ answer limits: four calls at the largest, never below 256 MiB', () => {
      const config = (limits: number[]) =>
        loadGatewayConfig({
          ATRIUM_GATEWAY_ISSUER_KEY: 'k'.repeat(32),
          ATRIUM_GATEWAY_DESTINATIONS: writeDestinations(limits.map((maxResponseBytes, i) => ({ ...destinationFor(upstream, { maxResponseBytes }), id: `d${i}` }))),
          PROVIDER_KEY: SECRET,
        }).calls.bufferBytes;
      assert.equal(config([MiB, 32 * MiB]), 4 * callHoldBytes(32 * MiB));
      assert.equal(config([64 * MiB]), 4 * callHoldBytes(64 * MiB));
      assert.equal(config([MiB]), 256 * MiB);
    });

    it('gives a place back when the caller goes away before its answer is read', async () => {
      const gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET, ATRIUM_CREDENTIAL_CALLS_PER_MEMBER: '1' } });
      try {
        const [a, b] = await Promise.all(['/v1/held', '/v1/quick'].map(async (path) => (await gw.issue(ticketRequest(upstream.url(path)))).body.ticket));
        const gone = new AbortController();
        const arrived = upstream.waitFor(upstream.received.length + 1);
        const abandoned = fetch(`${gw.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ticket: a }), signal: gone.signal });
        await arrived;
        gone.abort();
        await assert.rejects(abandoned);
        assert.equal((await use(gw, b!)).status, 429, 'the abandoned call still holds its place while the upstream answers');
        release();
        // The place comes back once the gateway has the answer it can no longer deliver; until then the same ticket is refused and left usable.
        for (;;) {
          const res = await use(gw, b!);
          if (res.status === 429) {
            await res.body?.cancel();
            continue;
          }
          assert.equal(res.status, 200);
          break;
        }
      } finally {
        await gw.stop();
      }
    });

    it('rejects a buffer smaller than a destination’s answer limit at start', async () => {
      await assert.rejects(
        startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream, { maxResponseBytes: 5000 })], env: { PROVIDER_KEY: SECRET, ATRIUM_GATEWAY_BUFFER_BYTES: '4999' } }),
        /ATRIUM_GATEWAY_BUFFER_BYTES \(4999\) must be at least what one call to destination "provider" may hold: 272144 bytes \(twice its maxResponseBytes, 5000, and 256 KiB\)/,
      );
    });
  });
}
