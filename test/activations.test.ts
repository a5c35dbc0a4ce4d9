import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestClock } from './support/clock.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

const FIFTEEN_MINUTES = 15 * 60 * 1000;

for (const backend of backends()) {
  describe(`Client activation (${backend})`, () => {
    let server: TestServer;
    let clock: TestClock;
    let ada: { handle: string; session: string };
    before(async () => {
      clock = new TestClock();
      server = await startServer(backend, { clock, env: { ATRIUM_ACTIVATION_RATE_LIMIT: '1000', ATRIUM_ACTIVATION_POLL_RATE_LIMIT: '1000' } });
      ada = await server.human('ada');
    });
    after(() => server.stop());

    const create = (body: unknown = { client_name: 'atrium CLI on laptop' }) =>
      server.request('POST', '/v0/client-activations', { body });
    const poll = (code: string, secret: string) =>
      server.request('POST', `/v0/client-activations/${code}/poll`, { body: { poll_secret: secret } });

    it('creates an activation with a short code, URLs and a one-time poll secret', async () => {
      const res = await create();
      assert.equal(res.status, 201);
      assert.match(res.body.code, /^[BCDFGHJKMNPQRTWXY3467]{4}-[BCDFGHJKMNPQRTWXY3467]{4}$/);
      assert.equal(res.body.activation_url, `${server.url}/activate/${res.body.code}`);
      assert.equal(res.body.poll_url, `${server.url}/v0/client-activations/${res.body.code}/poll`);
      assert.equal(res.body.status, 'pending');
      assert.equal(res.body.member_handle, null);
      assert.equal(res.body.client_name, 'atrium CLI on laptop');
      assert.ok(res.body.poll_secret.length >= 43);
      assert.ok(res.body.poll_interval_seconds > 0);
      assert.equal(Date.parse(res.body.expires_ts) - clock.now().getTime(), FIFTEEN_MINUTES);

      const read = await server.request('GET', `/v0/client-activations/${res.body.code.toLowerCase().replace('-', '')}`);
      assert.equal(read.status, 200, 'codes are compared without case or dashes');
      assert.deepEqual(Object.keys(read.body).sort(), ['activation_url', 'client_name', 'code', 'expires_ts', 'member_handle', 'status']);

      const stored = await server.app.ctx.db.kysely.selectFrom('client_activations').selectAll().where('code', '=', res.body.code).executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(stored).includes(res.body.poll_secret), 'the poll secret is not stored');
    });

    it('uses a generic client name by default and validates input', async () => {
      const res = await create({});
      assert.equal(res.status, 201);
      assert.equal(res.body.client_name, 'API client');
      assert.equal((await create({ client_name: '' })).status, 422);
      assert.equal((await create({ client_name: 'x'.repeat(129) })).status, 422);
      assert.equal((await create({ client_name: 'ok', extra: 1 })).status, 422);
      assert.equal((await server.request('GET', '/v0/client-activations/NOPE-NOPE')).status, 404);
    });

    it('approves once, delivers the key exactly once, and the key works until revoked', async () => {
      const created = (await create()).body;
      const pending = await poll(created.code, created.poll_secret);
      assert.equal(pending.status, 200);
      assert.equal(pending.body.status, 'pending');
      assert.equal(pending.body.key, undefined);

      assert.equal((await server.request('POST', `/v0/client-activations/${created.code}/approve`)).status, 401);
      const approved = await server.request('POST', `/v0/client-activations/${created.code}/approve`, { token: ada.session });
      assert.equal(approved.status, 200);
      assert.equal(approved.body.status, 'approved');
      assert.equal(approved.body.member_handle, 'ada');
      const again = await server.request('POST', `/v0/client-activations/${created.code}/approve`, { token: ada.session });
      assert.equal(again.status, 409);

      assert.equal((await poll(created.code, 'x'.repeat(43))).status, 401, 'a wrong secret is refused');
      clock.advance(10_000);
      const delivered = await poll(created.code, created.poll_secret);
      assert.equal(delivered.status, 200);
      assert.equal(delivered.body.status, 'approved');
      assert.equal(delivered.body.member.handle, 'ada');
      const key: string = delivered.body.key;
      assert.match(key, /^sk_atrium_[A-Za-z0-9_-]{43}$/);
      assert.equal((await poll(created.code, created.poll_secret)).status, 409, 'delivered once');
      assert.equal((await server.request('GET', `/v0/client-activations/${created.code}`)).body.status, 'consumed');

      const me = await server.request('GET', '/v0/me', { token: key });
      assert.equal(me.status, 200);
      assert.equal(me.body.handle, 'ada');

      const creds = await server.request('GET', '/v0/credentials', { token: ada.session });
      const cred = creds.body.credentials.find((c: { client_name: string; key_prefix: string }) => key.startsWith(c.key_prefix));
      assert.ok(cred, 'the credential is listed by its prefix');
      assert.equal(cred.client_name, 'atrium CLI on laptop');

      const events = await server.request('GET', '/v0/events?limit=500', { token: STEWARD_KEY });
      const created_ = events.body.events.filter((e: { type: string }) => e.type === 'client_credential_created');
      assert.ok(created_.some((e: { payload: { id: string } }) => e.payload.id === cred.id));
      assert.ok(!JSON.stringify(events.body).includes(key), 'events never carry the key');
      const keyRows = await server.app.ctx.db.kysely.selectFrom('member_keys').selectAll().execute();
      assert.ok(!JSON.stringify(keyRows).includes(key), 'the key is not stored');

      assert.equal((await server.request('POST', `/v0/credentials/${cred.id}/revoke`, { token: ada.session })).status, 200);
      assert.equal((await server.request('GET', '/v0/me', { token: key })).status, 401, 'a revoked key is refused at once');
    });

    it("slows a client that polls too fast down for good, 5 seconds per hurried poll (RFC 8628 slow_down)", async () => {
      const created = (await create()).body;
      const interval = created.poll_interval_seconds as number;
      const first = await poll(created.code, created.poll_secret);
      assert.equal(first.body.retry_after_seconds, interval);
      const hurried = await poll(created.code, created.poll_secret);
      assert.deepEqual([hurried.status, hurried.body.status, hurried.body.retry_after_seconds], [200, 'pending', interval + 5]);
      // The old interval is no longer enough: that poll is too soon as well.
      clock.advance(interval * 1000);
      const stillHurried = await poll(created.code, created.poll_secret);
      assert.equal(stillHurried.body.retry_after_seconds, interval + 10);
      // Keeping the raised interval is on time, and the interval stays raised.
      clock.advance((interval + 10) * 1000);
      const patient = await poll(created.code, created.poll_secret);
      assert.equal(patient.body.retry_after_seconds, interval + 10);
      // Another activation is not slowed by this one.
      const other = (await create()).body;
      assert.equal((await poll(other.code, other.poll_secret)).body.retry_after_seconds, interval);
    });

    it('expires after 15 minutes: approval is 410 and polls say expired', async () => {
      const created = (await create()).body;
      clock.advance(FIFTEEN_MINUTES - 1);
      assert.equal((await server.request('GET', `/v0/client-activations/${created.code}`)).body.status, 'pending');
      clock.advance(1);
      assert.equal((await server.request('GET', `/v0/client-activations/${created.code}`)).body.status, 'expired');
      const approve = await server.request('POST', `/v0/client-activations/${created.code}/approve`, { token: ada.session });
      assert.equal(approve.status, 410);
      const polled = await poll(created.code, created.poll_secret);
      assert.equal(polled.status, 200);
      assert.equal(polled.body.status, 'expired');
      assert.equal(polled.body.key, undefined);
    });

    it('needs an active human to approve: agents are refused', async () => {
      const registered = await server.request('POST', '/v0/agents', { body: { handle: 'ada-bot', operator: 'ada' } });
      assert.equal((await server.request('POST', '/v0/agents/ada-bot/confirm', { token: ada.session })).status, 200);
      assert.equal((await server.request('POST', '/v0/agents/ada-bot/approve', { token: STEWARD_KEY })).status, 200);
      const created = (await create()).body;
      const byAgent = await server.request('POST', `/v0/client-activations/${created.code}/approve`, { token: registered.body.key });
      assert.equal(byAgent.status, 403);
      const byHumanKey = await server.request('POST', `/v0/client-activations/NOPE-NOPE/approve`, { token: ada.session });
      assert.equal(byHumanKey.status, 404);
      assert.equal((await poll('NOPE-NOPE', created.poll_secret)).status, 404);
      assert.equal((await poll(created.code, 'short')).status, 422);
    });

    it('of many concurrent polls after approval exactly one receives the key', async () => {
      const created = (await create()).body;
      await server.request('POST', `/v0/client-activations/${created.code}/approve`, { token: ada.session });
      const results = await Promise.all(Array.from({ length: 10 }, () => poll(created.code, created.poll_secret)));
      const winners = results.filter((r) => r.status === 200);
      assert.equal(winners.length, 1);
      assert.ok(winners[0]!.body.key);
      assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 409));
    });
  });

  describe(`Client activation rate limit (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_ACTIVATION_RATE_LIMIT: '3' } });
    });
    after(() => server.stop());

    it('limits creation per client address with 429 and Retry-After', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await server.request('POST', '/v0/client-activations', { body: {} })).status, 201);
      const limited = await server.request('POST', '/v0/client-activations', { body: {} });
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      const spoofed = await server.request('POST', '/v0/client-activations', { body: {}, headers: { 'x-forwarded-for': '203.0.113.99' } });
      assert.equal(spoofed.status, 429, 'X-Forwarded-For is ignored unless ATRIUM_TRUST_PROXY names the proxy');
      assert.equal(await server.app.ctx.db.kysely.selectFrom('client_activations').select('code').execute().then((r) => r.length), 3);
    });
  });
}

describe('Client activation rate limit behind a trusted proxy (sqlite)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer('sqlite', { env: { ATRIUM_ACTIVATION_RATE_LIMIT: '1', ATRIUM_TRUST_PROXY: '127.0.0.1' } });
  });
  after(() => server.stop());

  it('counts each forwarded client address separately', async () => {
    const from = (address: string) =>
      server.request('POST', '/v0/client-activations', { body: {}, headers: { 'x-forwarded-for': address } });
    assert.equal((await from('203.0.113.7')).status, 201);
    assert.equal((await from('203.0.113.7')).status, 429, 'the same client is limited');
    assert.equal((await from('198.51.100.9')).status, 201, 'another client behind the same proxy is not');
  });
});
