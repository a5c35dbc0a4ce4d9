import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GATEWAY_ERROR_STATUS, type GatewayErrorCode } from '../src/shared/gateway-wire.js';
import { destinationFor, gatewayBackends, PATH_TRICKS, PATHS_ALLOWED, PURPOSES_REFUSED, startGateway, startUpstream, ticketRequest, type TestGateway, type Upstream } from './support/gateway.js';

const SECRET = 'sk-provider-secret-tickets-0123';

for (const backend of gatewayBackends()) {
  describe(`credential gateway issuance refusals (${backend})`, () => {
    let upstream: Upstream;
    let gw: TestGateway;
    before(async () => {
      upstream = await startUpstream();
      gw = await startGateway({
        backend,
        destinations: [destinationFor(upstream), destinationFor(upstream, { id: 'keyed', credential: { header: 'x-api-key', env: 'PROVIDER_KEY' }, requestHeaders: ['content-type'] })],
        env: { PROVIDER_KEY: SECRET },
      });
    });
    after(async () => {
      await gw?.stop();
      await upstream?.stop();
    });

    /** Issues `req`, expects the refusal `code`, and finds it as the ledger's newest record, `denied`, about this run. */
    async function refused(req: ReturnType<typeof ticketRequest>, code: GatewayErrorCode) {
      const res = await gw.issue(req);
      assert.equal(res.status, GATEWAY_ERROR_STATUS[code], JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'detail']);
      assert.equal(res.body.code, code);
      assert.ok((res.body.detail ?? '').length > 0);
      const last = (await gw.ledger()).at(-1)!;
      assert.deepEqual([last.decision, last.error_code, last.run_id], ['denied', code, req.run_id]);
      assert.equal(last.ticket_fingerprint, null);
      return last;
    }

    it('refuses a caller without the issuer key (401 unauthorized) and records nothing', async () => {
      const before = (await gw.ledger()).length;
      const req = ticketRequest(upstream.url('/v1/x'));
      for (const key of ['', 'wrong', `${gw.issuerKey}x`, gw.issuerKey.slice(0, -1), gw.auditKey]) {
        const res = await gw.issue(req, key);
        assert.equal(res.status, 401, key);
        assert.deepEqual(res.body, { code: 'unauthorized', detail: res.body.detail });
      }
      assert.equal((await gw.ledger()).length, before);
    });

    it('refuses a malformed body with 422 invalid_request, exactly {code, detail}', async () => {
      const bad = [
        { ...ticketRequest(upstream.url('/v1/x')), run_id: '' },
        { ...ticketRequest(upstream.url('/v1/x')), extra: 1 },
        { ...ticketRequest(upstream.url('/v1/x')), request: { method: 'TRACE', url: upstream.url('/v1/x'), headers: {} } },
      ];
      for (const body of bad) {
        const res = await fetch(`${gw.url}/v1/tickets`, { method: 'POST', headers: { authorization: `Bearer ${gw.issuerKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal(res.status, 422);
        const json = (await res.json()) as { code: string; detail: string };
        assert.deepEqual(Object.keys(json).sort(), ['code', 'detail']);
        assert.equal(json.code, 'invalid_request');
      }
      for (const [type, raw] of [['application/json', '{"not json'], ['text/plain', 'hello']]) {
        const res = await fetch(`${gw.url}/v1/tickets`, { method: 'POST', headers: { authorization: `Bearer ${gw.issuerKey}`, 'content-type': type! }, body: raw });
        assert.equal(res.status, 422, type);
        assert.equal(((await res.json()) as { code: string }).code, 'invalid_request');
      }
    });

    it('records a body that is not canonical base64, or a header name not in lower case, as invalid_request', async () => {
      await refused(ticketRequest(upstream.url('/v1/x'), { request: { method: 'POST', body_base64: 'aGk=x' } }), 'invalid_request');
      await refused(ticketRequest(upstream.url('/v1/x'), { request: { headers: { 'Content-Type': 'text/plain' } } }), 'invalid_request');
      await refused(ticketRequest(upstream.url('/v1/x'), { request: { headers: { 'content-type': 'a\r\nx-injected: 1' } } }), 'invalid_request');
    });

    it('refuses a purpose with a control or format character with 422 invalid_request, before anything is recorded', async () => {
      const before = (await gw.ledger()).length;
      for (const [what, purpose] of PURPOSES_REFUSED) {
        const res = await gw.issue(ticketRequest(upstream.url('/v1/x'), { purpose }));
        assert.equal(res.status, 422, what);
        assert.deepEqual(Object.keys(res.body).sort(), ['code', 'detail']);
        assert.equal(res.body.code, 'invalid_request', what);
        // The words name the field and the character refused.
        assert.match(res.body.detail!, /^purpose must be one line without control or format characters \(found U\+[0-9A-F]{4,}\)$/, what);
      }
      assert.equal((await gw.ledger()).length, before, 'no refusal put the purpose in the ledger');
      // Text beyond ASCII is fine: only what is invisible or steers the display is refused.
      assert.equal((await gw.issue(ticketRequest(upstream.url('/v1/x'), { purpose: 'Prévision à 5 jours — 東京 ✓' }))).status, 201);
    });

    it('refuses URLs the shape rules forbid with 422 url_invalid', async () => {
      const origin = upstream.origin;
      const port = new URL(origin).port;
      const urls = [
        'not a url',
        `ftp://127.0.0.1:${port}/v1/x`,
        `http://user:pw@127.0.0.1:${port}/v1/x`,
        `${origin}/v1/x#part`,
        `${origin}/v1/x#`,
        `${origin}/v1/../v1/x`,
        `HTTP://127.0.0.1:${port}/v1/x`,
        `${origin}/v1/a b`,
        `${origin}/v1/a%2Fb`,
        `${origin}/v1/a%2fb`,
        `${origin}/v1/a%5Cb`,
        `${origin}/v1/%2e%2e/secret`,
        `${origin}/v1/a%3Fb`,
        `${origin}/v1/a%23b`,
      ];
      for (const url of urls) {
        const record = await refused(ticketRequest(url), 'url_invalid');
        assert.ok(record.path === null || !record.path.includes('?'));
      }
      // An encoded delimiter in the query is a query value, not a path trick.
      assert.equal((await gw.issue(ticketRequest(`${origin}/v1/x?next=%2F%3F`))).status, 201);
    });

    it('refuses a path that any common server would read as a dot segment, a separator or a parameter: 422 url_invalid, recorded', async () => {
      const before = upstream.received.length;
      for (const [what, path] of PATH_TRICKS) {
        const url = upstream.url(path);
        assert.equal(new URL(url).href, url, `${what}: written as its serialisation, so only the path rule can refuse it`);
        const res = await gw.issue(ticketRequest(url));
        assert.equal(res.status, 422, `${what}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body, { code: 'url_invalid', detail: res.body.detail }, what);
        // The words say which URL rule refused it.
        assert.match(res.body.detail!, /^the URL path must not hold /, what);
        const last = (await gw.ledger()).at(-1)!;
        assert.deepEqual([last.decision, last.error_code], ['denied', 'url_invalid'], what);
      }
      for (const path of PATHS_ALLOWED) assert.equal((await gw.issue(ticketRequest(upstream.url(path)))).status, 201, path);
      assert.equal(upstream.received.length, before, 'issuance sends nothing');
    });

    it('refuses headers a caller may not send with 403 header_denied', async () => {
      const names = ['authorization', 'cookie', 'proxy-authorization', 'proxy-connection', 'host', 'content-length', 'connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'x-not-allowed'];
      for (const name of names) {
        const record = await refused(ticketRequest(upstream.url('/v1/x'), { request: { headers: { [name]: 'v' } } }), 'header_denied');
        assert.equal(record.path, '/v1/x');
      }
      // The credential's own header, even where the destination does not forbid it otherwise.
      await refused(ticketRequest(upstream.url('/v1/x'), { destination_id: 'keyed', request: { headers: { 'x-api-key': 'mine' } } }), 'header_denied');
      assert.equal((await gw.issue(ticketRequest(upstream.url('/v1/x'), { request: { headers: { 'x-trace': 'ok' } } }))).status, 201);
    });

    it('applies the destination policy: 403 destination_denied for an unknown destination, origin, path or method', async () => {
      const port = Number(new URL(upstream.origin).port);
      await refused(ticketRequest(upstream.url('/v1/x'), { destination_id: 'nowhere' }), 'destination_denied');
      await refused(ticketRequest(`http://127.0.0.1:${port + 1 === 65536 ? port - 1 : port + 1}/v1/x`), 'destination_denied');
      await refused(ticketRequest(`http://localhost:${port}/v1/x`), 'destination_denied');
      await refused(ticketRequest(`https://127.0.0.1:${port}/v1/x`), 'destination_denied');
      const outside = await refused(ticketRequest(upstream.url('/v2/x?key=hidden')), 'destination_denied');
      assert.equal(outside.path, '/v2/x', 'the path is recorded without its query');
      assert.equal(outside.host, new URL(upstream.origin).host);
      await refused(ticketRequest(upstream.url('/v1beta/x')), 'destination_denied');
      await refused(ticketRequest(upstream.url('/'), {}), 'destination_denied');
      await refused(ticketRequest(upstream.url('/v1/x'), { request: { method: 'DELETE' } }), 'destination_denied');
      assert.equal((await gw.issue(ticketRequest(upstream.url('/v1')))).status, 201, 'the prefix itself is under the prefix');
      const ledger = JSON.stringify(await gw.ledger());
      assert.ok(!ledger.includes('hidden'), 'no query value is recorded');
    });

    it('records the identity fields of a refusal as the service sent them', async () => {
      const req = ticketRequest(upstream.url('/v2/x'), { member: 'bea', member_type: 'human', operator: 'bea', task_id: 7, approval_id: 'apr_1', space: 'orchard', connection_id: 'cn', purpose: 'Why not' });
      const record = await refused(req, 'destination_denied');
      assert.deepEqual(
        [record.member, record.member_type, record.operator, record.task_id, record.approval_id, record.space, record.connection_id, record.purpose, record.request_id, record.method, record.destination_id],
        ['bea', 'human', 'bea', 7, 'apr_1', 'orchard', 'cn', 'Why not', req.request_id, 'GET', 'provider'],
      );
      assert.deepEqual([record.status, record.latency_ms, record.request_bytes, record.response_bytes, record.provider_request_id, record.adapter_id], [null, null, null, null, null, null]);
    });
  });

  describe(`credential gateway ticket checks (${backend})`, () => {
    let upstream: Upstream;
    let gw: TestGateway;
    let other: TestGateway;
    before(async () => {
      upstream = await startUpstream();
      gw = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
      other = await startGateway({ backend, inProcess: true, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
    });
    after(async () => {
      await gw?.stop();
      await other?.stop();
      await upstream?.stop();
    });

    it('refuses a ticket it did not sign, or one altered, with 401 ticket_invalid, and sends nothing', async () => {
      const before = upstream.received.length;
      const foreign = (await other.issue(ticketRequest(upstream.url('/v1/x')))).body.ticket;
      const own = (await gw.issue(ticketRequest(upstream.url('/v1/x')))).body.ticket;
      const [header, payload, signature] = own.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      const altered = [header, Buffer.from(JSON.stringify({ ...claims, url: upstream.url('/v1/other') })).toString('base64url'), signature].join('.');
      const unsigned = [Buffer.from(JSON.stringify({ alg: 'none', typ: 'atrium-ticket+jwt' })).toString('base64url'), payload, ''].join('.');
      for (const ticket of [foreign, altered, unsigned, 'garbage', `${own}x`]) {
        const res = await gw.call(ticket);
        assert.equal(res.status, 401, ticket);
        assert.deepEqual(res.body, { code: 'ticket_invalid', detail: res.body.detail });
      }
      assert.equal(upstream.received.length, before);
      assert.deepEqual((await gw.ledger()).map((r) => r.decision), ['issued'], 'forged tickets leave no record');
      // The genuine one still works once.
      assert.equal((await gw.call(own)).status, 200);
    });

    it('refuses a call body without a ticket with 422 invalid_request; unknown paths are 404', async () => {
      const res = await fetch(`${gw.url}/v1/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(res.status, 422);
      assert.equal(((await res.json()) as { code: string }).code, 'invalid_request');
      const missing = await fetch(`${gw.url}/v1/nothing`);
      assert.equal(missing.status, 404);
      const notFound = (await missing.json()) as { code: string; detail: string };
      assert.deepEqual(notFound, { code: 'route_not_found', detail: notFound.detail });
      assert.deepEqual(await (await fetch(`${gw.url}/healthz`)).json(), { status: 'ok' });
    });
  });
}
