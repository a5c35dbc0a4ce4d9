import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startSession } from '../src/identity/sessions.js';
import { createHuman } from '../src/members/service.js';
import { assignRole } from '../src/roles/service.js';
import { answerHoldBytes, MIN_CALL_BUFFER_BYTES } from '../src/credentials/call-limits.js';
import { MAX_RESPONSE_BYTES_CEILING } from '../src/shared/gateway-wire.js';
import { answers, destinationFor, startGateway, startUpstream, type TestGateway, type Upstream } from './support/gateway.js';
import { ContractChecker } from './support/contract.js';
import { seedAgent } from './support/seed.js';
import { backends, freePort, STEWARD_KEY, withPg, type Backend, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/**
 * The service and the real gateway together (the gateway as `atrium gateway`
 * in a child process, in front of a provider on loopback): a brokered call
 * reaches the provider with the provider's credential and nothing of the
 * caller's, while the service's database, event feed and log never hold that
 * credential, a ticket, or a query value. Every answer is checked against the
 * served contract.
 */

const PROVIDER_SECRET = `provider-secret-${randomBytes(12).toString('hex')}`;
const QUERY_SECRET = `q${randomBytes(8).toString('hex')}`;

// Answers are picked apart field by field; the contract check validated their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface LoggedServer {
  url: string;
  app: App;
  /** Every line the service logged, as written. */
  log: string[];
  request(method: string, path: string, opts?: { token?: string; body?: unknown }): Promise<{ status: number; headers: Headers; body: Json }>;
  /** Every row of every table, as text. */
  everything(): Promise<string>;
  stop(): Promise<void>;
}

/** A real server on loopback, as test/support/server.ts starts one, but logging at debug level into memory. */
async function startLoggedServer(backend: Backend, env: Record<string, string>): Promise<LoggedServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'atrium-credentials-e2e-'));
  let schema: string | undefined;
  let databaseUrl = `sqlite:${join(dir, 'atrium.db')}`;
  if (backend === 'postgres') {
    databaseUrl = process.env.ATRIUM_TEST_DATABASE_URL!;
    schema = `atrium_test_${randomBytes(6).toString('hex')}`;
    await withPg(databaseUrl, (c) => c.query(`create schema ${schema}`));
  }
  const log: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log.push(...chunk.toString().split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const config = loadConfig({
    ATRIUM_PORT: String(port),
    ATRIUM_BASE_URL: `http://127.0.0.1:${port}`,
    ATRIUM_DATABASE_URL: databaseUrl,
    ATRIUM_STEWARD_KEY: STEWARD_KEY,
    ...env,
  });
  config.dataDir = dir;
  const app = await createApp(config, { log: createLogger('debug', sink), ...(schema ? { databaseSchema: schema } : {}) });
  await app.http.listen({ host: '127.0.0.1', port });
  const url = `http://127.0.0.1:${port}`;
  const contract = new ContractChecker((await (await fetch(`${url}/v0/openapi.json`)).json()) as ConstructorParameters<typeof ContractChecker>[0]);
  return {
    url,
    app,
    log,
    async request(method, path, opts = {}) {
      const res = await fetch(url + path, {
        method,
        headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      });
      const text = await res.text();
      const body = text === '' ? undefined : JSON.parse(text);
      contract.check(method, path, res.status, body);
      return { status: res.status, headers: res.headers, body };
    },
    async everything() {
      const db = app.ctx.db.kysely;
      const tables =
        backend === 'sqlite'
          ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map((r) => r.name)
          : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema}`.execute(db)).rows.map((r) => r.name);
      const dumps: string[] = [];
      for (const table of tables) dumps.push(JSON.stringify((await sql`select * from ${sql.table(table)}`.execute(db)).rows));
      return dumps.join('\n');
    },
    async stop() {
      await app.close();
      if (schema) await withPg(databaseUrl, (c) => c.query(`drop schema ${schema} cascade`));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

for (const backend of backends()) {
  describe(`credential calls through the real gateway (${backend})`, () => {
    let upstream: Upstream;
    let gateway: TestGateway;
    let server: LoggedServer;
    let dir: string;
    let hostSession: string;
    let botKey: string;
    let botHandle: string;
    const issuedTickets: string[] = [];

    before(async () => {
      upstream = await startUpstream();
      upstream.answer('/v1/forecast', answers.json({ temperature: 3 }, 200, { 'x-request-id': 'prov-123', 'set-cookie': 'session=provider' }));
      gateway = await startGateway({
        backend,
        destinations: [destinationFor(upstream, { methods: ['GET', 'POST'] })],
        env: { PROVIDER_KEY: PROVIDER_SECRET },
      });
      dir = mkdtempSync(join(tmpdir(), 'atrium-connections-'));
      const connections = join(dir, 'connections.json');
      writeFileSync(
        connections,
        JSON.stringify({
          connections: [
            { id: 'weather', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['agent', 'human'], maxTtlSeconds: 60, approvalRequiredMethods: ['POST'] },
            { id: 'tasked', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['agent'], maxTtlSeconds: 60, requireTask: true },
          ],
        }),
      );
      server = await startLoggedServer(backend, {
        ATRIUM_CREDENTIAL_CONNECTIONS: connections,
        ATRIUM_GATEWAY_URL: gateway.url,
        ATRIUM_GATEWAY_ISSUER_KEY: gateway.issuerKey,
      });
      // What `atrium admin create-owner` and a sign-in would leave behind.
      hostSession = await server.app.ctx.db.transaction(async (tx) => {
        await createHuman(tx, { system: 'admin_cli' }, { handle: 'ada', email: 'ada@example.test' });
        await tx.db.updateTable('members').set({ email_verified: 1 }).where('handle', '=', 'ada').execute();
        await assignRole(tx, { system: 'admin_cli' }, { member: 'ada', role: 'owner', space: null });
        return (await startSession(tx, 'ada')).token;
      });
      const bot = await seedAgent(server as unknown as TestServer, 'scout', 'ada', 'active');
      botKey = bot.key;
      botHandle = bot.handle;
      assert.equal((await server.request('POST', '/v0/spaces', { token: hostSession, body: { slug: 'garden', name: 'The Garden' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/garden/approve', { token: hostSession })).status, 200);
      assert.equal((await server.request('POST', '/v0/spaces/garden/join', { token: botKey })).status, 200);
    });

    after(async () => {
      await server?.stop();
      await gateway?.stop();
      await upstream?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const call = (body: unknown, token = botKey) => server.request('POST', '/v0/spaces/garden/credential-calls', { token, body });
    const forecast = () => ({ method: 'GET', url: upstream.url(`/v1/forecast?city=oslo&key=${QUERY_SECRET}`), headers: { 'X-Trace': 'trace-7' } });

    it('brokers one exact call: the provider sees its credential and nothing of the caller, the caller sees the answer', async () => {
      const seen = upstream.received.length;
      const res = await call({ connection_id: 'weather', run_id: 'run-forecast-1', purpose: 'Check the forecast', request: forecast() });
      assert.equal(res.status, 200, res.body?.detail);
      assert.deepEqual(
        { ...res.body, bodyBase64: undefined },
        { run_id: 'run-forecast-1', status: 200, headers: { 'content-type': 'application/json', 'x-request-id': 'prov-123' }, bodyBase64: undefined, provider_request_id: 'prov-123' },
      );
      assert.deepEqual(JSON.parse(Buffer.from(res.body.bodyBase64, 'base64').toString()), { temperature: 3 });

      const [got] = (await upstream.waitFor(seen + 1)).slice(seen);
      assert.equal(got!.method, 'GET');
      assert.equal(got!.url, `/v1/forecast?city=oslo&key=${QUERY_SECRET}`);
      assert.equal(got!.headers.authorization, `Bearer ${PROVIDER_SECRET}`);
      assert.equal(got!.headers['x-trace'], 'trace-7');
      assert.doesNotMatch(JSON.stringify(got!.headers), new RegExp(botKey), "the caller's own credential never travels on");

      const ledger = (await gateway.ledger()).filter((r) => r.run_id === 'run-forecast-1');
      assert.deepEqual(
        ledger.map((r) => r.decision),
        ['issued', 'started', 'brokered'],
      );
      assert.equal(ledger[0]!.member, `${server.url}/v0/members/${botHandle}`);
      assert.equal(ledger[0]!.operator, `${server.url}/v0/members/ada`);
      assert.equal(ledger[0]!.purpose, 'Check the forecast');
    });

    it('records credential_ticket_issued in the Space feed, with method and host but no query value', async () => {
      const feed = await server.request('GET', '/v0/spaces/garden/events?limit=500', { token: botKey });
      assert.equal(feed.status, 200);
      const issued = feed.body.events.filter((e: Json) => e.type === 'credential_ticket_issued' && e.payload.run_id === 'run-forecast-1');
      assert.equal(issued.length, 1);
      assert.equal(issued[0].actor, botHandle);
      assert.deepEqual(issued[0].payload, {
        connection_id: 'weather',
        run_id: 'run-forecast-1',
        task_id: null,
        approval_id: null,
        method: 'GET',
        host: new URL(upstream.origin).host,
        expires_ts: issued[0].payload.expires_ts,
      });
      assert.ok(Date.parse(issued[0].payload.expires_ts) > Date.parse(issued[0].created_ts));
      assert.doesNotMatch(JSON.stringify(feed.body), new RegExp(`${QUERY_SECRET}|oslo|trace-7`));
    });

    it('hands out a ticket that works once at the gateway, and the run id then stays used', async () => {
      const res = await server.request('POST', '/v0/spaces/garden/credential-tickets', {
        token: botKey,
        body: { connection_id: 'weather', run_id: 'run-ticket-1', purpose: 'Harness call', ttl_seconds: 5, request: forecast() },
      });
      assert.equal(res.status, 201, res.body?.detail);
      assert.equal(res.body.gateway_url, gateway.url);
      assert.equal(res.body.run_id, 'run-ticket-1');
      issuedTickets.push(res.body.ticket);
      assert.ok(Date.parse(res.body.expires_ts) - Date.now() <= 5000, 'the lifetime asked for');
      const first = await gateway.call(res.body.ticket);
      assert.equal(first.status, 200);
      assert.equal(first.body.provider_request_id, 'prov-123');
      const second = await gateway.call(res.body.ticket);
      assert.equal(second.status, 409);
      assert.equal(second.body.code, 'ticket_replayed');

      const again = await server.request('POST', '/v0/spaces/garden/credential-tickets', {
        token: botKey,
        body: { connection_id: 'weather', run_id: 'run-ticket-1', purpose: 'Harness call', request: forecast() },
      });
      assertError(again, 'run_id_reused');
    });

    it('refusals, the gateway’s included, do not use a run id up', async () => {
      const beforeLedger = (await gateway.ledger()).length;
      const refusedHere = await call({ connection_id: 'weather', run_id: 'run-retry', purpose: 'p', request: { ...forecast(), headers: { Cookie: 'a=b' } } });
      assertError(refusedHere, 'header_denied');
      assert.equal((await gateway.ledger()).length, beforeLedger, "the service's refusal reached no ledger");

      const refusedThere = await call({ connection_id: 'weather', run_id: 'run-retry', purpose: 'p', request: { method: 'GET', url: upstream.url('/v2/elsewhere') } });
      assertError(refusedThere, 'destination_denied');
      const denied = (await gateway.ledger()).filter((r) => r.run_id === 'run-retry');
      assert.deepEqual(
        denied.map((r) => r.decision),
        ['denied'],
      );

      const ok = await call({ connection_id: 'weather', run_id: 'run-retry', purpose: 'p', request: forecast() });
      assert.equal(ok.status, 200, ok.body?.detail);
      const reused = await call({ connection_id: 'weather', run_id: 'run-retry', purpose: 'p', request: forecast() });
      assertError(reused, 'run_id_reused');
    });

    it('a claimed task lets a task-bound connection call, and the event names it', async () => {
      const task = await server.request('POST', '/v0/spaces/garden/tasks', { token: botKey, body: { kind: 'general', title: 'Forecast' } });
      assert.equal(task.status, 201);
      const body = { connection_id: 'tasked', task_id: task.body.id, purpose: 'For the task', request: forecast() };
      const unclaimed = await call(body);
      assertError(unclaimed, 'task_not_claimed');
      assert.equal((await server.request('POST', `/v0/spaces/garden/tasks/${task.body.id}/claim`, { token: botKey })).status, 200);
      const res = await call({ ...body, run_id: 'run-task' });
      assert.equal(res.status, 200, res.body?.detail);
      const ledger = (await gateway.ledger()).filter((r) => r.run_id === 'run-task');
      assert.ok(ledger.every((r) => r.task_id === task.body.id));
    });

    it('one approval, two racing calls: exactly one reaches the provider', async () => {
      const request = { method: 'POST', url: upstream.url('/v1/readings'), headers: { 'content-type': 'application/json' }, body: '{"reading":1}' };
      const approval = await server.request('POST', '/v0/spaces/garden/credential-approvals', {
        token: hostSession,
        body: { connection_id: 'weather', member_handle: botHandle, run_id: 'run-post', purpose: 'Post a reading', reason: 'The weekly reading', request },
      });
      assert.equal(approval.status, 201, approval.body?.detail);
      const seen = upstream.received.filter((r) => r.url === '/v1/readings').length;
      const body = { connection_id: 'weather', run_id: 'run-post', approval_id: approval.body.id, purpose: 'Post a reading', request };
      const results = await Promise.all([call(body), call(body)]);
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 409], JSON.stringify(results.map((r) => r.body)));
      const lost = results.find((r) => r.status === 409)!;
      const code = lost.headers.get('atrium-error');
      assert.ok(code === 'approval_consumed' || code === 'run_id_reused', JSON.stringify(lost.body));
      assertError(lost, code);
      assert.equal(upstream.received.filter((r) => r.url === '/v1/readings').length, seen + 1);
      const posted = upstream.received.filter((r) => r.url === '/v1/readings').at(-1)!;
      assert.equal(posted.body.toString(), '{"reading":1}');

      const consumed = await call({ ...body, run_id: 'run-post' });
      assert.equal(consumed.status, 409);
      const ledger = (await gateway.ledger()).filter((r) => r.run_id === 'run-post');
      assert.deepEqual(
        ledger.map((r) => [r.decision, r.approval_id]),
        [
          ['issued', approval.body.id],
          ['started', approval.body.id],
          ['brokered', approval.body.id],
        ],
      );
    });

    it('keeps the provider credential and every ticket out of its database and its log', async () => {
      assert.ok(server.log.length > 0, 'the service logged at debug level');
      const logged = server.log.join('\n');
      const stored = await server.everything();
      for (const secret of [PROVIDER_SECRET, ...issuedTickets]) {
        assert.ok(!logged.includes(secret), 'a secret in the log');
        assert.ok(!stored.includes(secret), 'a secret in the database');
      }
      assert.ok(!logged.includes(QUERY_SECRET), 'a query value in the log');
      assert.ok(stored.includes('run-forecast-1'), 'the dump does hold what the service stores');
    });
  });

  describe(`credential calls in flight, at the service and at the gateway (${backend})`, () => {
    let upstream: Upstream;
    let gateway: TestGateway;
    let server: LoggedServer;
    let dir: string;
    let hostSession: string;
    const keys: Record<string, string> = {};
    /** Answers the provider holds back until the test lets them go. */
    const held: ServerResponse[] = [];

    before(async () => {
      upstream = await startUpstream();
      upstream.answer('/v1/held', (_req, res) => void held.push(res));
      // The gateway lets one call per connection run; the service would let two.
      gateway = await startGateway({ backend, destinations: [destinationFor(upstream, { methods: ['GET', 'POST'] })], env: { PROVIDER_KEY: PROVIDER_SECRET, ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION: '1' } });
      dir = mkdtempSync(join(tmpdir(), 'atrium-connections-'));
      const connections = join(dir, 'connections.json');
      writeFileSync(
        connections,
        JSON.stringify({
          connections: [
            { id: 'weather', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['agent'], maxTtlSeconds: 60, approvalRequiredMethods: ['POST'] },
            { id: 'spare', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['agent'], maxTtlSeconds: 60 },
          ],
        }),
      );
      server = await startLoggedServer(backend, {
        ATRIUM_CREDENTIAL_CONNECTIONS: connections,
        ATRIUM_GATEWAY_URL: gateway.url,
        ATRIUM_GATEWAY_ISSUER_KEY: gateway.issuerKey,
        ATRIUM_CREDENTIAL_CALLS_PER_MEMBER: '1',
        ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION: '2',
      });
      hostSession = await server.app.ctx.db.transaction(async (tx) => {
        await createHuman(tx, { system: 'admin_cli' }, { handle: 'ada', email: 'ada@example.test' });
        await tx.db.updateTable('members').set({ email_verified: 1 }).where('handle', '=', 'ada').execute();
        await assignRole(tx, { system: 'admin_cli' }, { member: 'ada', role: 'owner', space: null });
        return (await startSession(tx, 'ada')).token;
      });
      assert.equal((await server.request('POST', '/v0/spaces', { token: hostSession, body: { slug: 'garden', name: 'The Garden' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/garden/approve', { token: hostSession })).status, 200);
      for (const handle of ['scout', 'wren']) {
        keys[handle] = (await seedAgent(server as unknown as TestServer, handle, 'ada', 'active')).key;
        assert.equal((await server.request('POST', '/v0/spaces/garden/join', { token: keys[handle] })).status, 200);
      }
    });

    after(async () => {
      await server?.stop();
      await gateway?.stop();
      await upstream?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** A call as a client makes it, with the answer's Retry-After. */
    const call = async (handle: string, body: unknown) => {
      const res = await fetch(`${server.url}/v0/spaces/garden/credential-calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[handle]}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Json };
    };
    /** Starts a call and resolves, once the provider holds it, with its answer to come. */
    const inFlight = async (handle: string, body: unknown) => {
      const arrived = upstream.waitFor(upstream.received.length + 1);
      const answer = call(handle, body);
      await arrived;
      return { answer };
    };
    const release = () => {
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{"done":true}');
    };
    const runs = async () => (await server.app.ctx.db.kysely.selectFrom('credential_runs').select(['member_handle', 'run_id', 'state']).orderBy('run_id').execute()).map((r) => `${r.member_handle}/${r.run_id}/${r.state}`);

    it('refuses a member’s call beyond its bound with 429 too_many_calls and Retry-After, before anything reaches the gateway or is used up', async () => {
      const first = await inFlight('scout', { connection_id: 'weather', run_id: 'run-first', purpose: 'Hold on', request: { method: 'GET', url: upstream.url('/v1/held') } });
      const ledger = (await gateway.ledger()).length;
      const refused = await call('scout', { connection_id: 'spare', run_id: 'run-second', purpose: 'Meanwhile', request: { method: 'GET', url: upstream.url('/v1/forecast') } });
      assertError(refused, 'too_many_calls');
      assert.equal(refused.retryAfter, '1');
      // Which bound was reached, the member's or the connection's, is the point.
      assert.match(refused.body.detail, /^too_many_calls: scout already has 1 external calls in flight/);
      assert.equal((await gateway.ledger()).length, ledger, 'the gateway was not asked');
      assert.ok(!(await runs()).some((r) => r.includes('run-second')), 'no run id was used');
      release();
      assert.equal((await first.answer).status, 200);
      const later = await call('scout', { connection_id: 'spare', run_id: 'run-second', purpose: 'Meanwhile', request: { method: 'GET', url: upstream.url('/v1/forecast') } });
      assert.equal(later.status, 200, JSON.stringify(later.body));
    });

    it('passes on the gateway’s 429 with Retry-After, and frees the run id and the approval for the same call', async () => {
      const request = { method: 'POST', url: upstream.url('/v1/held'), headers: { 'content-type': 'application/json' }, body: '{"n":1}' };
      const approval = await server.request('POST', '/v0/spaces/garden/credential-approvals', {
        token: hostSession,
        body: { connection_id: 'weather', member_handle: 'wren', run_id: 'run-approved', purpose: 'Post it', reason: 'Weekly post', request },
      });
      assert.equal(approval.status, 201, approval.body?.detail);
      const body = { connection_id: 'weather', run_id: 'run-approved', approval_id: approval.body.id, purpose: 'Post it', request };

      const first = await inFlight('scout', { connection_id: 'weather', run_id: 'run-holding', purpose: 'Hold on', request: { method: 'GET', url: upstream.url('/v1/held') } });
      const sent = upstream.received.length;
      const refused = await call('wren', body);
      assertError(refused, 'too_many_calls');
      assert.equal(refused.retryAfter, '1');
      // Which bound was reached, the member's or the connection's, is the point.
      assert.match(refused.body.detail, /^too_many_calls: connection weather already has 1 calls in flight/);
      assert.equal(upstream.received.length, sent, 'nothing reached the provider');
      assert.ok(!(await runs()).some((r) => r.includes('run-approved')), 'the run id is free again');
      const listed = await server.request('GET', '/v0/spaces/garden/credential-approvals', { token: hostSession });
      assert.equal(listed.body.approvals.find((a: Json) => a.id === approval.body.id).status, 'issued', 'the approval is unused');

      release();
      assert.equal((await first.answer).status, 200);
      const again = await inFlight('wren', body);
      release();
      const answered = await again.answer;
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.equal(upstream.received.at(-1)!.body.toString(), '{"n":1}');
      const ledger = (await gateway.ledger()).filter((r) => r.run_id === 'run-approved');
      assert.deepEqual(
        ledger.map((r) => r.decision),
        ['issued', 'issued', 'started', 'brokered'],
        'the ticket refused for load was dropped unused; the second was used',
      );
    });
  });

  describe(`the bytes credential calls hold at the service, whoever asks (${backend})`, () => {
    const LIMIT = 32 * 1024 * 1024;
    /** What an answer is: large, and well within the destination's limit. */
    const SIZE = 3 * 1024 * 1024;
    /** Room for three calls to this destination at the service; the gateway has room for more. */
    const BUDGET = 3 * answerHoldBytes(LIMIT);
    let upstream: Upstream;
    let gateway: TestGateway;
    let server: LoggedServer;
    let dir: string;
    const keys: Record<string, string> = {};
    const waiting: ServerResponse[] = [];
    let holding = true;
    let arrived = () => {};

    const big = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(SIZE, 'y'));

    before(async () => {
      upstream = await startUpstream();
      upstream.answer('/v1/archive', (_req, res) => {
        if (!holding) return big(res);
        waiting.push(res);
        arrived();
      });
      gateway = await startGateway({
        backend,
        destinations: [destinationFor(upstream, { maxResponseBytes: LIMIT, timeoutMs: 60_000 })],
        env: { PROVIDER_KEY: PROVIDER_SECRET, ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION: '100', ATRIUM_GATEWAY_BUFFER_BYTES: String(1024 * 1024 * 1024) },
      });
      dir = mkdtempSync(join(tmpdir(), 'atrium-connections-'));
      const connections = join(dir, 'connections.json');
      writeFileSync(connections, JSON.stringify({ connections: [{ id: 'archive', space: 'garden', destinationId: 'provider', allowedMemberTypes: ['agent'], maxTtlSeconds: 60 }] }));
      server = await startLoggedServer(backend, {
        ATRIUM_CREDENTIAL_CONNECTIONS: connections,
        ATRIUM_GATEWAY_URL: gateway.url,
        ATRIUM_GATEWAY_ISSUER_KEY: gateway.issuerKey,
        ATRIUM_CREDENTIAL_CALLS_PER_MEMBER: '2',
        ATRIUM_CREDENTIAL_CALLS_PER_CONNECTION: '100',
        ATRIUM_CREDENTIAL_BUFFER_BYTES: String(BUDGET),
      });
      const hostSession = await server.app.ctx.db.transaction(async (tx) => {
        await createHuman(tx, { system: 'admin_cli' }, { handle: 'ada', email: 'ada@example.test' });
        await tx.db.updateTable('members').set({ email_verified: 1 }).where('handle', '=', 'ada').execute();
        await assignRole(tx, { system: 'admin_cli' }, { member: 'ada', role: 'owner', space: null });
        return (await startSession(tx, 'ada')).token;
      });
      assert.equal((await server.request('POST', '/v0/spaces', { token: hostSession, body: { slug: 'garden', name: 'The Garden' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/garden/approve', { token: hostSession })).status, 200);
      for (const handle of ['scout', 'wren', 'finch', 'robin']) {
        keys[handle] = (await seedAgent(server as unknown as TestServer, handle, 'ada', 'active')).key;
        assert.equal((await server.request('POST', '/v0/spaces/garden/join', { token: keys[handle] })).status, 200);
      }
    });

    after(async () => {
      await server?.stop();
      await gateway?.stop();
      await upstream?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const call = (handle: string, runId: string) => server.request('POST', '/v0/spaces/garden/credential-calls', { token: keys[handle], body: { connection_id: 'archive', run_id: runId, purpose: 'Fetch the archive', request: { method: 'GET', url: upstream.url('/v1/archive') } } });
    const runs = async () => (await server.app.ctx.db.kysely.selectFrom('credential_runs').select(['run_id', 'state']).orderBy('run_id').execute()).map((r) => `${r.run_id}/${r.state}`);

    it('refuses the calls beyond the process’s room with 503 host_busy and Retry-After before their tickets are used; the admitted are answered whole', async () => {
      // Three members, two calls each: every one within its member's bound, six at once.
      const callers = ['scout', 'scout', 'wren', 'wren', 'finch', 'finch'].map((handle, i) => ({ handle, runId: `run-big-${i}` }));
      const refused: Array<{ handle: string; runId: string; res: Awaited<ReturnType<typeof call>> }> = [];
      let allIn!: () => void;
      const everyCallIn = new Promise<void>((resolve) => (allIn = resolve));
      const settle = () => {
        if (waiting.length + refused.length === callers.length) allIn();
      };
      arrived = settle;
      const calls = callers.map(({ handle, runId }) =>
        call(handle, runId).then((res) => {
          if (res.status !== 200) {
            refused.push({ handle, runId, res });
            settle();
          }
          return res;
        }),
      );
      await everyCallIn;
      assert.deepEqual([waiting.length, refused.length], [3, 3], 'three answers fit the room');
      assert.deepEqual(server.app.ctx.credentialCalls.held(), { calls: 3, bytes: BUDGET, peakBytes: BUDGET });
      for (const { res } of refused) {
        assertError(res, 'host_busy');
        assert.equal(res.headers.get('retry-after'), '1');
      }
      const refusedRuns = refused.map((r) => r.runId);
      assert.ok(!(await runs()).some((r) => refusedRuns.some((id) => r.startsWith(`${id}/`))), 'the refused calls’ run ids are free');

      // With no room left for even the shortest answer, a call is refused before a ticket is asked for.
      const ledgerBefore = (await gateway.ledger()).length;
      assertError(await call('robin', 'run-big-extra'), 'host_busy');
      assert.equal((await gateway.ledger()).length, ledgerBefore, 'the gateway was not asked');

      holding = false;
      for (const res of waiting.splice(0)) big(res);
      const answered = (await Promise.all(calls)).filter((res) => res.status === 200);
      assert.equal(answered.length, 3);
      for (const res of answered) assert.equal(Buffer.from(res.body.bodyBase64 as string, 'base64').length, SIZE, 'answered whole');
      assert.ok(server.app.ctx.credentialCalls.held().peakBytes <= BUDGET, 'never more counted than the room');

      // The same calls, made again, are answered: their run ids were freed, and the dropped tickets never used.
      for (const { handle, runId } of refused) {
        const again = await call(handle, runId);
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.equal(Buffer.from(again.body.bodyBase64 as string, 'base64').length, SIZE);
        const ledger = (await gateway.ledger()).filter((r) => r.run_id === runId);
        assert.deepEqual(ledger.map((r) => r.decision), ['issued', 'issued', 'started', 'brokered'], 'the refused call’s ticket was dropped unused');
      }
      assert.ok(server.app.ctx.credentialCalls.held().peakBytes <= BUDGET, 'never more counted than the room');
    });

    it('will not start with less room than one call at the longest answer a gateway may send', () => {
      assert.throws(
        () => loadConfig({ ATRIUM_BASE_URL: 'http://127.0.0.1:1', ATRIUM_CREDENTIAL_BUFFER_BYTES: String(MIN_CALL_BUFFER_BYTES - 1) }),
        new RegExp(`ATRIUM_CREDENTIAL_BUFFER_BYTES \\(${MIN_CALL_BUFFER_BYTES - 1}\\) must be at least ${MIN_CALL_BUFFER_BYTES}`),
      );
      assert.equal(loadConfig({ ATRIUM_BASE_URL: 'http://127.0.0.1:1' }).credentialCalls.bufferBytes, 2 * answerHoldBytes(MAX_RESPONSE_BYTES_CEILING));
    });
  });
}
