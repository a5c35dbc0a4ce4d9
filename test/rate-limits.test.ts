import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TestClock } from './support/clock.js';
import { backends, startServer, type TestResponse, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/**
 * Per-address limits hold exactly under concurrency, on both databases and,
 * on PostgreSQL, across two Atrium nodes sharing one database: each
 * check-and-count is atomic (docs/architecture.md, rate limits). Addresses are
 * kept only as keyed digests.
 */

const LIMIT = 20;
const CONCURRENT = 60;

const ENV = {
  ATRIUM_ACTIVATION_RATE_LIMIT: String(LIMIT),
  ATRIUM_AGENT_REGISTRATION_RATE_LIMIT: String(LIMIT),
  ATRIUM_ACTIVATION_POLL_RATE_LIMIT: String(LIMIT),
};

const statusCounts = (answers: TestResponse[]) =>
  answers.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

for (const backend of backends()) {
  describe(`Per-address limits under concurrency (${backend})`, () => {
    let first: TestServer;
    /** The nodes requests are spread over: one on SQLite, two on PostgreSQL. */
    let nodes: TestServer[];
    let clock: TestClock;
    before(async () => {
      clock = new TestClock();
      first = await startServer(backend, { env: ENV, clock });
      nodes = backend === 'postgres' ? [first, await startServer(backend, { env: ENV, clock, shareWith: first })] : [first];
      await first.human('opal');
    });
    after(async () => {
      for (const node of nodes.slice(1)) await node.stop();
      await first.stop();
    });

    const spread = (request: (node: TestServer, i: number) => Promise<TestResponse>) =>
      Promise.all(Array.from({ length: CONCURRENT }, (_, i) => request(nodes[i % nodes.length]!, i)));

    it(`lets exactly ${LIMIT} of ${CONCURRENT} concurrent client activations through`, async () => {
      const answers = await spread((node) => node.request('POST', '/v0/client-activations', { body: { client_name: 'burst' } }));
      assert.deepEqual(statusCounts(answers), { 201: LIMIT, 429: CONCURRENT - LIMIT });
      for (const r of answers.filter((a) => a.status === 429)) assert.ok(Number(r.headers.get('retry-after')) > 0);
    });

    it(`lets exactly ${LIMIT} of ${CONCURRENT} concurrent anonymous agent registrations through`, async () => {
      const answers = await spread((node, i) =>
        node.request('POST', '/v0/agents', { body: { handle: `burst-bot-${i}`, operator: 'opal', display_name: 'Burst bot' } }),
      );
      assert.deepEqual(statusCounts(answers), { 201: LIMIT, 429: CONCURRENT - LIMIT });
    });

    it(`issues exactly 5 sign-in codes for ${CONCURRENT} concurrent requests for one address`, async () => {
      const answers = await spread((node) => node.request('POST', '/v0/sign-in/email', { body: { email: 'opal@example.test' } }));
      // Asks are counted per address whether it has an account or not, so the 429s say nothing of accounts.
      assert.deepEqual(statusCounts(answers), { 202: 5, 429: CONCURRENT - 5 });
      const codes = await first.app.ctx.db.kysely
        .selectFrom('sign_in_codes')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('email', '=', 'opal@example.test')
        .executeTakeFirstOrThrow();
      assert.equal(Number(codes.n), 5);
    });

    it(`caps activation polls per address at ${LIMIT} a minute, wrong secrets included`, async () => {
      // Past the creation window of the burst above.
      clock.advance(60 * 60 * 1000);
      const created = (await first.request('POST', '/v0/client-activations', { body: {} })).body;
      const fresh = (await first.request('POST', '/v0/client-activations', { body: {} })).body;
      const answers = await spread((node, i) =>
        node.request('POST', `/v0/client-activations/${i % 2 ? created.code : fresh.code}/poll`, {
          body: { poll_secret: i % 3 ? fresh.poll_secret : 'w'.repeat(43) },
        }),
      );
      const limited = answers.filter((r) => r.status === 429);
      assert.equal(limited.length, CONCURRENT - LIMIT, JSON.stringify(statusCounts(answers)));
      for (const r of limited) {
        assertError(r, 'rate_limited');
        // Which limit: activation polls, not the other per-address buckets.
        assert.match(r.body.detail, /too many activation polls/);
        assert.ok(Number(r.headers.get('retry-after')) > 0);
      }
      // A minute later the address may poll again.
      clock.advance(61 * 1000);
      assert.equal((await first.request('POST', `/v0/client-activations/${fresh.code}/poll`, { body: { poll_secret: fresh.poll_secret } })).status, 200);
    });

    it('keeps client addresses only as digests keyed with a host secret', async () => {
      const db = first.app.ctx.db.kysely;
      const hits = await db.selectFrom('rate_limit_hits').select('key_hash').distinct().execute();
      const stored = [...hits.map((h) => h.key_hash), ...(await db.selectFrom('client_activations').select('client_address').execute()).map((r) => r.client_address)];
      assert.ok(stored.length > 0);
      // Whatever form the loopback address took, its bare SHA-256 is nowhere.
      const bare = ['127.0.0.1', '::ffff:127.0.0.1', '::1'].map((a) => createHash('sha256').update(a).digest('hex'));
      for (const digest of stored) assert.ok(!bare.includes(digest), 'a bare SHA-256 of the address is stored');
      // One secret for the host, shared by every node.
      const secrets = await db.selectFrom('host_secrets').selectAll().where('name', '=', 'client_address_hmac').execute();
      assert.equal(secrets.length, 1);
      assert.equal(Buffer.from(secrets[0]!.value, 'base64url').length, 32);
      for (const node of nodes) assert.equal(node.app.ctx.addressDigest('192.0.2.1'), first.app.ctx.addressDigest('192.0.2.1'));
    });
  });
}
