import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { components } from '../src/client/openapi.js';
import { TestClock } from './support/clock.js';
import { seedAgent, seedMemberKey } from './support/seed.js';
import { backends, startServer, type TestResponse, type TestServer } from './support/server.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { assertError } from './support/errors.js';

type Endpoint = components['schemas']['WebhookEndpoint'];

for (const backend of backends()) {
  describe(`webhook endpoints (${backend})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let ada: { handle: string; session: string };
    let bea: { handle: string; session: string };
    let botKey: string;
    before(async () => {
      // Receivers listen on loopback, which only an allow-list opens (docs/egress.md).
      server = await startServer(backend, { env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8', ATRIUM_WEBHOOK_TIMEOUT_MS: '2000' } });
      receiver = await WebhookReceiver.start(server.url);
      ada = await server.human('ada');
      bea = await server.human('bea');
      botKey = (await seedAgent(server, 'ada-bot', 'ada', 'active')).key;
    });
    after(async () => {
      await receiver.stop();
      await server.stop();
    });

    const register = (token: string, url: string) => server.request('POST', '/v0/webhook-endpoints', { token, body: { url } });
    const list = async (token: string) => ((await server.request('GET', '/v0/webhook-endpoints', { token })).body as { endpoints: Endpoint[] }).endpoints;

    it('registers a receiver unverified, with the URL as a browser would write it', async () => {
      const created = await register(ada.session, receiver.url('/hooks/ada').replace('http://', 'HTTP://'));
      assert.equal(created.status, 201, created.body?.detail);
      const endpoint = created.body as Endpoint;
      assert.match(endpoint.id, /^whep_[a-z2-7]{26}$/);
      assert.deepEqual(
        { url: endpoint.url, status: endpoint.status, owner: endpoint.owner_member, verified: endpoint.verified_ts },
        { url: receiver.url('/hooks/ada'), status: 'unverified', owner: 'ada', verified: null },
      );
      assert.deepEqual(
        (await server.request('GET', `/v0/webhook-endpoints/${endpoint.id}`, { token: ada.session })).body,
        endpoint,
      );
      // Agents manage their own endpoints with their member key.
      assert.equal((await register(botKey, receiver.url('/hooks/bot'))).status, 201);
      assert.deepEqual(
        (await list(botKey)).map((e) => e.owner_member),
        ['ada-bot'],
      );
    });

    it('refuses URLs it may not send to with 422 naming why, and stores nothing', async () => {
      const before = await list(ada.session);
      const refusals: Array<[string, RegExp]> = [
        ['https://10.0.0.7/hook', /10\.0\.0\.7 is not a public address \(private network\)/],
        ['https://169.254.169.254/latest', /link-local/],
        ['http://[::1]:9/hook', /::1 is not a public address \(loopback\)/],
        ['https://[::ffff:192.168.1.1]/hook', /private network/],
        ['https://[::a9fe:a9fe]/latest', /::a9fe:a9fe is not a public address \(IPv4-compatible\)/],
        ['https://[::7f00:1]/hook', /::7f00:1 is not a public address \(IPv4-compatible\)/],
        ['ftp://127.0.0.1/hook', /must use https, not ftp/],
        ['https://user:secret@127.0.0.1/hook', /user name or password/],
        ['/relative', /not an absolute URL/],
      ];
      for (const [url, reason] of refusals) {
        const res = await register(ada.session, url);
        assertError(res, 'webhook_url_refused', url);
        assert.match(res.body.detail, /^url: /);
        assert.match(res.body.detail, reason, url);
      }
      assert.deepEqual(await list(ada.session), before);
    });

    it('verifies by a signed challenge that the receiver echoes, and only then is active', async () => {
      const endpoint = (await register(ada.session, receiver.url('/verify/ok'))).body as Endpoint;
      const verified = await server.request('POST', `/v0/webhook-endpoints/${endpoint.id}/verify`, { token: ada.session });
      assert.equal(verified.status, 200, verified.body?.detail);
      assert.equal(verified.body.status, 'active');
      assert.ok(verified.body.verified_ts);

      const challenge = receiver.received.filter((r) => r.path === '/verify/ok').at(-1)!;
      assert.equal(challenge.signatureValid, true);
      assert.deepEqual(Object.keys(challenge.body).sort(), ['challenge', 'created_ts', 'id', 'issuer', 'spec_version', 'type']);
      assert.equal(challenge.body.type, 'atrium.webhook.challenge');
      assert.equal(challenge.body.spec_version, 'atrium.webhooks/1');
      assert.equal(challenge.body.issuer, server.url);
      assert.equal(challenge.headers['webhook-id'], challenge.body.id);
      assert.match(String(challenge.body.id), /^whd_/);
      // The endpoint rides in the signed value: a receiver can refuse a challenge for someone else's endpoint at its URL.
      assert.match(String(challenge.body.challenge), new RegExp(`^${endpoint.id}\\.[A-Za-z0-9_-]{32}$`));
      const again = await server.request('POST', `/v0/webhook-endpoints/${endpoint.id}/verify`, { token: ada.session });
      assert.equal(again.status, 200, again.body?.detail);
      assert.notEqual(receiver.at('/verify/ok').at(-1)!.body.challenge, challenge.body.challenge, 'each challenge is fresh');
      assert.equal(challenge.headers['content-type'], 'application/json');
    });

    it('leaves the endpoint as it was when the challenge fails, saying why', async () => {
      const answers: Array<[string, (res: import('node:http').ServerResponse, challenge: unknown) => void, RegExp]> = [
        ['/verify/wrong', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"challenge":"not it"}'), /echoes another `challenge`/],
        ['/verify/missing', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), /has no `challenge`/],
        ['/verify/text', (res) => res.writeHead(200).end('ok'), /did not answer with JSON/],
        ['/verify/error', (res) => res.writeHead(500).end(), /answered 500, not 2xx/],
        ['/verify/redirect', (res) => res.writeHead(307, { location: '/verify/ok' }).end(), /answered 307, a redirect, which is not followed/],
        // No answer at all: the attempt's time limit ends it.
        ['/verify/silent', () => undefined, /no complete answer within 2000 ms/],
      ];
      for (const [path, answer, reason] of answers) {
        receiver.behaviours.set(path, (req, res) => answer(res, req.body.challenge));
        const endpoint = (await register(ada.session, receiver.url(path))).body as Endpoint;
        const res = await server.request('POST', `/v0/webhook-endpoints/${endpoint.id}/verify`, { token: ada.session });
        assertError(res, 'challenge_failed', path);
        assert.match(res.body.detail, reason, path);
        assert.deepEqual((await server.request('GET', `/v0/webhook-endpoints/${endpoint.id}`, { token: ada.session })).body, endpoint);
        assert.equal((await server.request('DELETE', `/v0/webhook-endpoints/${endpoint.id}`, { token: ada.session })).status, 204);
      }
    });

    it("answers 404 for anyone else's endpoint and after deletion, 401 without a credential", async () => {
      const endpoint = (await register(ada.session, receiver.url('/hooks/mine'))).body as Endpoint;
      const path = `/v0/webhook-endpoints/${endpoint.id}`;
      const heard = receiver.received.length;
      for (const token of [bea.session, botKey]) {
        assert.equal((await server.request('GET', path, { token })).status, 404);
        assert.equal((await server.request('POST', `${path}/verify`, { token })).status, 404);
        assert.equal((await server.request('DELETE', path, { token })).status, 404);
      }
      assert.equal(receiver.received.length, heard, 'no challenge went out for a stranger');
      assert.ok(!(await list(bea.session)).some((e) => e.id === endpoint.id));
      assert.equal((await server.request('GET', '/v0/webhook-endpoints')).status, 401);
      assert.equal((await server.request('POST', '/v0/webhook-endpoints', { body: { url: receiver.url('/x') } })).status, 401);

      assert.equal((await server.request('DELETE', path, { token: ada.session })).status, 204);
      assert.equal((await server.request('GET', path, { token: ada.session })).status, 404);
      assert.equal((await server.request('DELETE', path, { token: ada.session })).status, 404);
      assert.equal((await server.request('POST', `${path}/verify`, { token: ada.session })).status, 404);
      assert.ok(!(await list(ada.session)).some((e) => e.id === endpoint.id));
    });

    it('holds at most 20 endpoints per member, deleted ones not counted', async () => {
      const cy = await server.human('cyd');
      const cyKey = await seedMemberKey(server, 'cyd');
      const ids: string[] = [];
      for (let n = 0; n < 20; n++) {
        const res = await register(n % 2 === 0 ? cy.session : cyKey, receiver.url(`/quota/${n}`));
        assert.equal(res.status, 201, res.body?.detail);
        ids.push(res.body.id);
      }
      const over = await register(cy.session, receiver.url('/quota/over'));
      assertError(over, 'quota_reached');
      assert.equal((await list(cy.session)).length, 20);
      assert.equal((await server.request('DELETE', `/v0/webhook-endpoints/${ids[0]}`, { token: cy.session })).status, 204);
      assert.equal((await register(cy.session, receiver.url('/quota/again'))).status, 201);
    });
  });
}

const PER_ENDPOINT = 3;
const PER_MEMBER = 7;
const MINUTE = 60 * 1000;

for (const backend of backends()) {
  describe(`webhook challenges are metered (${backend})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let clock: TestClock;
    before(async () => {
      clock = new TestClock();
      server = await startServer(backend, {
        clock,
        env: {
          ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
          ATRIUM_WEBHOOK_TIMEOUT_MS: '2000',
          ATRIUM_WEBHOOK_VERIFY_RATE_LIMIT_PER_ENDPOINT: String(PER_ENDPOINT),
          ATRIUM_WEBHOOK_VERIFY_RATE_LIMIT_PER_MEMBER: String(PER_MEMBER),
        },
      });
      receiver = await WebhookReceiver.start(server.url);
    });
    after(async () => {
      await receiver.stop();
      await server.stop();
    });

    const register = async (token: string, path: string): Promise<Endpoint> => {
      const res = await server.request('POST', '/v0/webhook-endpoints', { token, body: { url: receiver.url(path) } });
      assert.equal(res.status, 201, res.body?.detail);
      return res.body as Endpoint;
    };
    const verify = (token: string, id: string) => server.request('POST', `/v0/webhook-endpoints/${id}/verify`, { token });
    const statuses = (answers: TestResponse[]) => answers.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

    it(`sends one endpoint at most ${PER_ENDPOINT} challenges per 10 minutes, failed ones included; beyond, 429 with Retry-After and nothing is sent`, async () => {
      const dee = await server.human('dee');
      // A receiver that never echoes: were failures free, verify in a loop would be an unmetered stream of POSTs at it.
      receiver.behaviours.set('/meter/wrong', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"challenge":"not it"}'));
      const endpoint = await register(dee.session, '/meter/wrong');
      const answers = await Promise.all(Array.from({ length: 12 }, () => verify(dee.session, endpoint.id)));
      assert.deepEqual(statuses(answers), { 422: PER_ENDPOINT, 429: 12 - PER_ENDPOINT });
      for (const refused of answers.filter((a) => a.status === 429)) {
        assertError(refused, 'rate_limited');
        assert.equal(refused.headers.get('retry-after'), '600');
        // The words name the limit reached, and what to do.
        assert.equal(refused.body.detail, `endpoint ${endpoint.id} was sent ${PER_ENDPOINT} challenges in the last 10 minutes, the most allowed; try again later`);
      }
      assert.equal(receiver.at('/meter/wrong').length, PER_ENDPOINT);
      assert.deepEqual((await server.request('GET', `/v0/webhook-endpoints/${endpoint.id}`, { token: dee.session })).body, endpoint);

      // Ten minutes on, the receiver fixed: the challenge goes out again.
      clock.advance(10 * MINUTE);
      receiver.behaviours.delete('/meter/wrong');
      const verified = await verify(dee.session, endpoint.id);
      assert.equal(verified.status, 200, verified.body?.detail);
      assert.equal(receiver.at('/meter/wrong').length, PER_ENDPOINT + 1);
    });

    it(`sends one member's endpoints at most ${PER_MEMBER} challenges per hour together, and a refusal counts against nothing`, async () => {
      const eli = await server.human('eli');
      const [first, second, third] = [await register(eli.session, '/meter/a'), await register(eli.session, '/meter/b'), await register(eli.session, '/meter/c')];
      for (const endpoint of [first!, first!, first!, second!, second!, second!, third!]) assert.equal((await verify(eli.session, endpoint.id)).status, 200);
      const heard = receiver.received.length;
      const refused = await verify(eli.session, third!.id);
      assertError(refused, 'rate_limited');
      assert.equal(refused.headers.get('retry-after'), '3600');
      // The words name the limit reached, and what to do.
      assert.equal(refused.body.detail, `your endpoints were sent ${PER_MEMBER} challenges in the last hour, the most allowed for one member; try again later`);
      assert.equal(receiver.received.length, heard, 'no challenge went out');
      // The endpoint's own count took no hit from the refused request: both limits are counted in one transaction.
      const hits = await server.app.ctx.db.kysely.selectFrom('rate_limit_hits').select('bucket').where('key_hash', '=', third!.id).execute();
      assert.deepEqual(hits, [{ bucket: 'webhook_verify_endpoint' }]);
      // Another member is not held back by Eli's count.
      const fay = await server.human('fay');
      assert.equal((await verify(fay.session, (await register(fay.session, '/meter/fay')).id)).status, 200);

      clock.advance(10 * MINUTE);
      assert.equal((await verify(eli.session, third!.id)).status, 429, 'the hour has not passed');
      clock.advance(50 * MINUTE);
      assert.equal((await verify(eli.session, third!.id)).status, 200);
    });
  });
}
