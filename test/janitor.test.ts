import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Janitor, JANITOR_BATCH } from '../src/janitor/janitor.js';
import { DELIVERIES_KEPT_PER_SUBSCRIPTION } from '../src/janitor/sweeps.js';
import type { DatabaseSchema } from '../src/storage/schema.js';
import { CliRunner } from './support/cli.js';
import { TestClock } from './support/clock.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';

const DAY = 24 * 60 * 60 * 1000;

/**
 * The janitor (docs/operations.md, "Growth") on a host whose clock the test
 * moves: records made through the API and kept while they count, removed in
 * batches once they expired, the event log and whatever is still live never
 * touched, and two nodes that both think they lead sweeping without double
 * work or errors.
 */
for (const backend of backends()) {
  describe(`janitor (${backend})`, () => {
    const clock = new TestClock();
    let server: TestServer;
    let ada: { handle: string; session: string };
    let subscription: string;

    const count = async (table: keyof DatabaseSchema) => Number((await server.app.ctx.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const blob = (text: string) => {
      const bytes = Buffer.from(text);
      return { digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, bytes, byte_length: bytes.length, created_ts: clock.now().toISOString() };
    };

    before(async () => {
      server = await startServer(backend, { clock, env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8' } });
      // Its readings every ten seconds of real time would be rows for the janitor too; this test counts what it seeds.
      server.app.sampler.stop();
      ada = await server.human('ada');
      await activeSpace(server, ada.session, 'plaza');
      // Made through the API: a sign-in code (and its rate-limit hit), a client activation, a Resource and its blob, and below an idempotency record.
      assert.equal((await server.request('POST', '/v0/sign-in/email', { body: { email: 'ada@example.test' } })).status, 202);
      assert.equal((await server.request('POST', '/v0/client-activations', { body: { client_name: 'janitor test' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/resources', { token: ada.session, body: { name: 'Charter', content: 'named by a version' } })).status, 201);
      // Seeded straight into the tables: a blob no version names, more rate-limit hits than a batch, and a delivery history.
      const db = server.app.ctx.db.kysely;
      await db.insertInto('blobs').values(blob('named by nothing')).execute();
      const hits = Array.from({ length: JANITOR_BATCH * 2 + 7 }, (_, i) => ({ bucket: 'janitor-test', key_hash: `k${i % 13}`, hit_ts: clock.now().toISOString() }));
      for (let i = 0; i < hits.length; i += 100) await db.insertInto('rate_limit_hits').values(hits.slice(i, i + 100)).execute();
      const endpoint = await server.request('POST', '/v0/webhook-endpoints', { token: ada.session, body: { url: 'http://127.0.0.1:9/janitor' } });
      assert.equal(endpoint.status, 201, endpoint.body?.detail);
      const created = await server.request('POST', '/v0/spaces/plaza/webhook-subscriptions', { token: ada.session, body: { endpoint_id: endpoint.body.id }, headers: { 'idempotency-key': 'janitor-1' } });
      assert.equal(created.status, 201, created.body?.detail);
      subscription = created.body.id;
      const deliveries = Array.from({ length: DELIVERIES_KEPT_PER_SUBSCRIPTION + 30 }, (_, i) => {
        const ts = new Date(clock.now().getTime() + i * 1000).toISOString();
        const pending = i < 2;
        return {
          id: `whd_janitor_${String(i).padStart(4, '0')}`,
          subscription_id: subscription,
          range_after: i,
          range_through: i + 1,
          body: '{}',
          status: pending ? ('pending' as const) : ('delivered' as const),
          attempts: pending ? 0 : 1,
          run_start: 0,
          next_attempt_ts: pending ? '9999-01-01T00:00:00.000Z' : null,
          lease_until: null,
          created_ts: ts,
          updated_ts: ts,
        };
      });
      for (let i = 0; i < deliveries.length; i += 50) await db.insertInto('webhook_deliveries').values(deliveries.slice(i, i + 50)).execute();
      const attempts = deliveries.filter((d) => d.status === 'delivered').map((d) => ({ delivery_id: d.id, attempt: 1, started_ts: d.created_ts, duration_ms: 3, response_status: 200, error: null }));
      for (let i = 0; i < attempts.length; i += 50) await db.insertInto('webhook_attempts').values(attempts.slice(i, i + 50)).execute();
    });
    after(async () => server.stop());

    it('removes nothing that still counts', async () => {
      const tables: Array<keyof DatabaseSchema> = ['sessions', 'sign_in_codes', 'client_activations', 'idempotency_keys', 'rate_limit_hits', 'webhook_deliveries', 'webhook_attempts', 'blobs', 'events'];
      const before = await Promise.all(tables.map(count));
      clock.advance(2 * 60 * 60 * 1000);
      const run = await server.app.janitor.run();
      assert.ok(run, 'a SQLite node, or the only PostgreSQL node, leads');
      assert.deepEqual(Object.values(run.removed).filter((n) => n > 0), [], JSON.stringify(run.removed));
      assert.deepEqual(await Promise.all(tables.map(count)), before);
      assert.equal(server.app.janitor.last, run);
    });

    it('once they expired, removes them in batches, keeps each subscription its newest deliveries, and never touches the event log', async () => {
      const events = await count('events');
      // Past a session's thirty days, the delivery retention of thirty days, and every grace period.
      clock.advance(32 * DAY);
      const run = await server.app.janitor.run();
      assert.ok(run);
      assert.equal(run.removed.rate_limit_hits, JANITOR_BATCH * 2 + 7 + 2, 'the seeded hits, in three batches, and the sign-in request\'s and the activation\'s own');
      assert.equal(run.removed.sign_in_codes, 1);
      assert.equal(run.removed.client_activations, 1);
      assert.equal(run.removed.idempotency_keys, 1);
      assert.equal(run.removed.sessions, 1);
      assert.equal(run.removed.blobs, 1, 'only the blob no version names');
      assert.equal(run.removed.webhook_deliveries, 28, 'of 128 finished, the 100 newest stay; pending ones are never the janitor\'s');
      assert.deepEqual(run.skipped, []);
      assert.equal(run.finished_ts, clock.now().toISOString());

      for (const table of ['sessions', 'sign_in_codes', 'client_activations', 'idempotency_keys', 'rate_limit_hits'] as const) assert.equal(await count(table), 0, table);
      assert.equal(await count('blobs'), 1);
      assert.equal(await count('events'), events, 'the event log is kept whole');
      const left = await server.app.ctx.db.kysely.selectFrom('webhook_deliveries').select(['id', 'status']).where('subscription_id', '=', subscription).orderBy('id').execute();
      assert.equal(left.length, DELIVERIES_KEPT_PER_SUBSCRIPTION + 2);
      assert.deepEqual(left.slice(0, 2).map((d) => d.status), ['pending', 'pending']);
      assert.equal(left[2]!.id, 'whd_janitor_0030', 'the oldest finished ones went');
      assert.equal(await count('webhook_attempts'), DELIVERIES_KEPT_PER_SUBSCRIPTION, 'their attempts went with them');

      const again = await server.app.janitor.run();
      assert.deepEqual(Object.values(again!.removed).filter((n) => n > 0), [], 'a second run finds nothing more');
    });

    it('lets two nodes that both think they lead sweep at once, removing each row once and failing nowhere', async () => {
      const db = server.app.ctx.db.kysely;
      const hits = Array.from({ length: JANITOR_BATCH * 4 }, (_, i) => ({ bucket: 'janitor-race', key_hash: `r${i % 7}`, hit_ts: clock.now().toISOString() }));
      for (let i = 0; i < hits.length; i += 100) await db.insertInto('rate_limit_hits').values(hits.slice(i, i + 100)).execute();
      clock.advance(2 * DAY);
      const other = new Janitor({ ...server.app.ctx, config: server.app.ctx.config, leading: () => true });
      const [a, b] = await Promise.all([server.app.janitor.run(), other.run()]);
      assert.equal((a!.removed.rate_limit_hits ?? 0) + (b!.removed.rate_limit_hits ?? 0), hits.length);
      assert.equal(await count('rate_limit_hits'), 0);
    });

    it('does nothing on a node that does not lead', async () => {
      const follower = new Janitor({ ...server.app.ctx, config: server.app.ctx.config, leading: () => false });
      assert.equal(await follower.run(), undefined);
      assert.equal(follower.last, undefined);
    });
  });
}

/**
 * `atrium admin janitor` killed with SIGKILL mid-run, on a host that keeps
 * serving: what it committed went in whole batches, nothing live went, and the
 * next run removes the rest.
 */
describe('the janitor killed mid-run (sqlite)', () => {
  let server: TestServer;
  let cli: CliRunner;
  const EXPIRED = JANITOR_BATCH * 40;

  before(async () => {
    server = await startServer('sqlite');
    cli = new CliRunner(server.url);
    const db = server.app.ctx.db.kysely;
    const old = new Date(Date.now() - 3 * DAY).toISOString();
    const rows = Array.from({ length: EXPIRED }, (_, i) => ({ bucket: 'killed', key_hash: `k${i % 97}`, hit_ts: old }));
    for (let i = 0; i < rows.length; i += 500) await db.insertInto('rate_limit_hits').values(rows.slice(i, i + 500)).execute();
    await db.insertInto('rate_limit_hits').values(Array.from({ length: 10 }, (_, i) => ({ bucket: 'live', key_hash: `l${i}`, hit_ts: new Date().toISOString() }))).execute();
  });
  after(async () => {
    await cli.cleanup();
    await server.stop();
  });

  const hits = async (bucket: string) =>
    Number((await server.app.ctx.db.kysely.selectFrom('rate_limit_hits').select((eb) => eb.fn.countAll<number>().as('n')).where('bucket', '=', bucket).executeTakeFirstOrThrow()).n);

  it('loses nothing live, leaves only whole batches done, and finishes at the next run', async () => {
    const ada = await server.human('ada');
    const env = { ATRIUM_DATABASE_URL: server.database.url, ATRIUM_DATA_DIR: server.app.ctx.config.dataDir, ATRIUM_LOG_LEVEL: 'warn' };
    const run = cli.spawn(['admin', 'janitor'], env);
    await run.waitForStdout(/^removed 500 from rate_limit_hits$/m);
    run.child.kill('SIGKILL');
    const ended = await run.exited;
    const left = await hits('killed');
    assert.equal((EXPIRED - left) % JANITOR_BATCH, 0, `only whole batches were removed (${EXPIRED - left} of ${EXPIRED})`);
    if (!/^Removed /m.test(ended.stdout)) assert.ok(left > 0, 'killed before it was done');
    assert.equal(await hits('live'), 10, 'no live row went');
    assert.equal((await server.request('GET', '/v0/me', { token: ada.session })).status, 200, 'a live session still signs in');

    const again = await cli.run(['admin', 'janitor'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`^Removed ${left} from rate_limit_hits\\.$`, 'm'));
    assert.equal(await hits('killed'), 0);
    assert.equal(await hits('live'), 10);
  });
});
