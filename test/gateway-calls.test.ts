import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answers, destinationFor, gatewayBackends, startGateway, startUpstream, ticketRequest, type TestGateway, type Upstream } from './support/gateway.js';

const SECRET = 'sk-provider-secret-0123456789';

for (const backend of gatewayBackends()) {
  describe(`credential gateway calls (${backend})`, () => {
    let upstream: Upstream;
    let gw: TestGateway;
    before(async () => {
      upstream = await startUpstream();
      gw = await startGateway({ backend, destinations: [destinationFor(upstream)], env: { PROVIDER_KEY: SECRET } });
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
      assert.deepEqual(Object.keys(issued.body).sort(), ['expires_ts', 'ticket']);

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
      assert.ok(!(gw.process!.stdout + gw.process!.stderr).includes(SECRET), 'the gateway log holds the credential');
    });
  });
}
