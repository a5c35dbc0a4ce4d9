// Bounded growth under a long mixed load (docs/operations.md, "Growth"):
// SOAK_REQUESTS (200,000) requests through the real API, in SOAK_ROUNDS (40)
// rounds, against a host whose clock moves a day a round, with the janitor run
// once a round as the leading node runs it. Prints the bookkeeping tables' row
// counts every few days of host time, taken just before the janitor's run: flat once what they hold has had time to
// expire (a day for codes and keys, 31 for sessions), while the event log
// grows with what was written. SQLite always; PostgreSQL too when
// ATRIUM_TEST_DATABASE_URL is set. `npx tsx scripts/soak.mts`.
import { TestClock } from '../test/support/clock.js';
import { backends, startServer, type TestServer } from '../test/support/server.js';
import { activeSpace } from '../test/support/spaces.js';

const TOTAL = Number(process.env.SOAK_REQUESTS ?? 200_000);
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 40);
const WORKERS = 16;
const HOURS_PER_ROUND = 24;
const BOOKKEEPING = ['sessions', 'sign_in_codes', 'client_activations', 'idempotency_keys', 'rate_limit_hits', 'operator_samples'] as const;

async function counts(server: TestServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of [...BOOKKEEPING, 'events'] as const) {
    out[table] = Number((await server.app.ctx.db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  }
  return out;
}

for (const backend of backends()) {
  const clock = new TestClock();
  const server = await startServer(backend, { clock, env: { ATRIUM_ACTIVATION_RATE_LIMIT: '1000000', ATRIUM_SEARCH_ANONYMOUS_RATE_LIMIT: '1000000', ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8' } });
  try {
    const ana = await server.human('ana', { role: 'owner' });
    // Sessions last 30 days and the soak runs 40: the writer signs in again every day, as a person would.
    const signInAgain = async () => {
      const { startSession } = await import('../src/identity/sessions.js');
      ana.session = (await server.app.ctx.db.transaction((tx) => startSession(tx, 'ana'))).token;
    };
    await activeSpace(server, ana.session, 'plaza');
    await server.request('POST', '/v0/spaces/plaza/join', { token: ana.session });
    const people = await Promise.all(Array.from({ length: 20 }, (_, i) => server.human(`soak-${i}`)));
    const endpoint = await server.request('POST', '/v0/webhook-endpoints', { token: ana.session, body: { url: 'http://127.0.0.1:9/soak' } });
    const subscription = await server.request('POST', '/v0/spaces/plaza/webhook-subscriptions', { token: ana.session, body: { endpoint_id: endpoint.body.id } });
    let sent = 0;
    let refused = 0;
    // What one request of the mix is: posts and reads, sign-in codes, client activations, idempotent updates, sessions.
    const one = async (n: number): Promise<void> => {
      const kind = n % 20;
      const token = ana.session;
      let status: number;
      if (kind < 8) status = (await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token, body: { body: `soak ${n}` }, unchecked: true })).status;
      else if (kind < 12) status = (await server.request('GET', '/v0/spaces/plaza/events?newest=1&limit=20', { token, unchecked: true })).status;
      else if (kind < 15) status = (await server.request('POST', '/v0/sign-in/email', { body: { email: `soak-${n % 20}@example.test` }, unchecked: true })).status;
      else if (kind < 17) status = (await server.request('POST', '/v0/client-activations', { body: { client_name: 'soak' }, unchecked: true })).status;
      else if (kind < 19) {
        status = (
          await server.request('PATCH', `/v0/spaces/plaza/webhook-subscriptions/${subscription.body.id}`, {
            token,
            body: { debounce_ms: 1000 + (n % 1000) },
            headers: { 'idempotency-key': `soak-key-${n}` },
            unchecked: true,
          })
        ).status;
      } else {
        // A sign-in, as the verify step ends one: a new session.
        await server.app.ctx.db.transaction(async (tx) => {
          const { startSession } = await import('../src/identity/sessions.js');
          await startSession(tx, people[n % people.length]!.handle);
        });
        status = 201;
      }
      sent += 1;
      if (status >= 400) refused += 1;
    };
    const perRound = Math.ceil(TOTAL / ROUNDS);
    const started = performance.now();
    console.log(`${backend}: ${TOTAL} requests in ${ROUNDS} rounds, ${HOURS_PER_ROUND} hours of host time a round`);
    console.log(`  ${['day', ...BOOKKEEPING, 'events'].join('  ')}`);
    for (let round = 0; round < ROUNDS; round++) {
      await signInAgain();
      let next = round * perRound;
      const end = Math.min(TOTAL, next + perRound);
      await Promise.all(Array.from({ length: WORKERS }, async () => {
        while (next < end) await one(next++);
      }));
      clock.advance(HOURS_PER_ROUND * 60 * 60 * 1000);
      await server.app.sampler.record();
      // Counted before the janitor's run: the most each table holds in a day.
      const c = await counts(server);
      await server.app.janitor.run();
      if ((round + 1) % 4 === 0 || round === 0) {
        console.log(`  ${String(((round + 1) * HOURS_PER_ROUND) / 24).padStart(3)}  ${[...BOOKKEEPING, 'events'].map((t) => String(c[t]).padStart(t.length)).join('  ')}`);
      }
    }
    console.log(`  ${sent} requests, ${refused} refused, in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await server.stop();
  }
}
process.exit(0);
