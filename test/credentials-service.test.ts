import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../src/config.js';
import { loadCredentialConnections } from '../src/credentials/connections.js';
import { MAX_CALL_ANSWER_BYTES } from '../src/shared/gateway-wire.js';
import { CliRunner } from './support/cli.js';
import { PATH_TRICKS, PURPOSES_REFUSED } from './support/gateway.js';
import { TestClock } from './support/clock.js';
import { seedAgent, seedMemberKey } from './support/seed.js';
import { backends, freePort, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { assertError } from './support/errors.js';
import type { ErrorCode } from '../src/shared/error-catalogue.js';

/** NUL and lone surrogates fail validation at the HTTP edge, as in every text field; other refused characters are the purpose rule's. */
const purposeCode = (purpose: string): ErrorCode => (purpose.includes('\u0000') || /\p{Cs}/u.test(purpose) ? 'validation_failed' : 'invalid_request');

/**
 * The service's side of the credential gateway without a gateway: who sees
 * which connection, every refusal the service makes itself (with its status
 * and `<code>: ` detail), and that none of them reaches the gateway. The
 * gateway here is a loopback listener that records what arrives; it answers
 * only the tests that ask it to.
 */

const ISSUER_KEY = 'issuer-key-for-tests-0123456789abcdef';

const CONNECTIONS = {
  connections: [
    { id: 'api', space: 'lab', destinationId: 'dest-api', allowedMemberTypes: ['human', 'agent'], maxTtlSeconds: 60, approvalRequiredMethods: ['POST', 'DELETE'] },
    { id: 'agents-only', space: 'lab', destinationId: 'dest-secret-agents', allowedMemberTypes: ['agent'], maxTtlSeconds: 30 },
    { id: 'bea-only', space: 'lab', destinationId: 'dest-bea', allowedMemberTypes: ['human', 'agent'], allowedActors: ['bea'], maxTtlSeconds: 300 },
    { id: 'tasked', space: 'lab', destinationId: 'dest-tasked', allowedMemberTypes: ['human', 'agent'], requireTask: true, maxTtlSeconds: 10 },
    { id: 'elsewhere', space: 'yard', destinationId: 'dest-yard', allowedMemberTypes: ['human', 'agent'], maxTtlSeconds: 30 },
  ],
};

/** A stand-in gateway: records each request; answers with what the test set, else 503. */
class RecordingGateway {
  readonly requests: Array<{ method: string; url: string; authorization: string | undefined; body: unknown }> = [];
  answer: { status: number; body: unknown } = { status: 503, body: { code: 'audit_unavailable', detail: 'not answering in this test' } };
  url = '';
  private readonly server: Server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      this.requests.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body: text ? JSON.parse(text) : undefined });
      res.writeHead(this.answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(this.answer.body));
    });
  });

  static async start(): Promise<RecordingGateway> {
    const gateway = new RecordingGateway();
    const port = await freePort();
    await new Promise<void>((resolve) => gateway.server.listen(port, '127.0.0.1', resolve));
    gateway.url = `http://127.0.0.1:${port}`;
    return gateway;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('credential connections file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-connections-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const base = { id: 'c', space: 'lab', destinationId: 'd', allowedMemberTypes: ['agent'], maxTtlSeconds: 30 };

  it('fills the defaults: any actor of the types, no task, no approvals', () => {
    const loaded = loadCredentialConnections(file('ok.json', { connections: [base] }));
    assert.deepEqual(loaded.all, [{ ...base, allowedActors: [], requireTask: false, approvalRequiredMethods: [] }]);
    assert.deepEqual(loadCredentialConnections(undefined).all, []);
  });

  it('refuses a malformed file with the path and the field', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['{not json', /cannot read .* as JSON/],
      [{ connections: [{ ...base, space: 'Not A Slug' }] }, /\/connections\/0\/space/],
      [{ connections: [{ ...base, allowedMemberTypes: [] }] }, /\/connections\/0\/allowedMemberTypes/],
      [{ connections: [{ ...base, allowedMemberTypes: ['robot'] }] }, /\/connections\/0\/allowedMemberTypes\/0/],
      [{ connections: [{ ...base, maxTtlSeconds: 301 }] }, /\/connections\/0\/maxTtlSeconds/],
      [{ connections: [{ ...base, maxTtlSeconds: 0 }] }, /\/connections\/0\/maxTtlSeconds/],
      [{ connections: [{ ...base, requireTask: 'yes' }] }, /\/connections\/0\/requireTask/],
      [{ connections: [{ ...base, approvalRequiredMethods: ['FETCH'] }] }, /\/connections\/0\/approvalRequiredMethods\/0/],
      [{ connections: [{ ...base, destination: 'x' }] }, /\/connections\/0/],
      [{ connections: [base, base] }, /connection c appears twice in Space lab/],
      [{}, /connections/],
    ];
    for (const [i, [content, message]] of cases.entries()) {
      const path = file(`bad-${i}.json`, content);
      assert.throws(() => loadCredentialConnections(path), (err: Error) => err instanceof ConfigError && message.test(err.message) && err.message.includes(path), JSON.stringify(content));
    }
  });

  it('stops `atrium serve` at start, with the reason on one line', async () => {
    const port = await freePort();
    const cli = new CliRunner(`http://127.0.0.1:${port}`);
    try {
      const result = await cli.run(['serve'], {
        ATRIUM_PORT: String(port),
        ATRIUM_DATA_DIR: join(dir, 'serve-data'),
        ATRIUM_CREDENTIAL_CONNECTIONS: file('serve.json', { connections: [{ ...base, maxTtlSeconds: 900 }] }),
      });
      assert.equal(result.code, 1, result.stdout);
      assert.match(result.stderr, /^atrium: ATRIUM_CREDENTIAL_CONNECTIONS: .*serve\.json: \/connections\/0\/maxTtlSeconds/m);
      assert.doesNotMatch(result.stdout, /listening/);
    } finally {
      await cli.cleanup();
    }
  });
});

for (const backend of backends()) {
  describe(`credential calls, the service's checks (${backend})`, () => {
    let server: TestServer;
    let gateway: RecordingGateway;
    let dir: string;
    let host: { handle: string; session: string };
    let hostKey: string;
    let bea: { handle: string; session: string };
    let cal: { handle: string; session: string };
    let botKey: string;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'atrium-credentials-'));
      const path = join(dir, 'connections.json');
      writeFileSync(path, JSON.stringify(CONNECTIONS));
      gateway = await RecordingGateway.start();
      server = await startServer(backend, {
        env: { ATRIUM_CREDENTIAL_CONNECTIONS: path, ATRIUM_GATEWAY_URL: gateway.url, ATRIUM_GATEWAY_ISSUER_KEY: ISSUER_KEY },
      });
      bea = await server.human('bea');
      cal = await server.human('cal');
      botKey = (await seedAgent(server, 'bea-bot', 'bea', 'active')).key;
      await activeSpace(server, bea.session, 'lab');
      await activeSpace(server, bea.session, 'yard');
      host = await server.human('hana', { role: 'host', space: 'lab' });
      hostKey = await seedMemberKey(server, host.handle);
      for (const token of [bea.session, botKey]) {
        for (const slug of ['lab', 'yard']) assert.equal((await server.request('POST', `/v0/spaces/${slug}/join`, { token })).status, 200);
      }
    });
    after(async () => {
      await server.stop();
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const list = (token: string, space = 'lab') => server.request('GET', `/v0/spaces/${space}/external-connections`, { token });
    const call = (token: string, body: unknown, space = 'lab') => server.request('POST', `/v0/spaces/${space}/credential-calls`, { token, body });
    const ticket = (token: string, body: unknown, space = 'lab') => server.request('POST', `/v0/spaces/${space}/credential-tickets`, { token, body });
    const approve = (token: string, body: unknown, space = 'lab') => server.request('POST', `/v0/spaces/${space}/credential-approvals`, { token, body });
    const get = { method: 'GET', url: 'https://api.example.test/v1/items?page=2' } as const;

    it('lists only the connections whose member types and actors admit the caller, never a destination', async () => {
      const human = await list(bea.session);
      assert.equal(human.status, 200);
      assert.deepEqual(human.body, {
        connections: [
          { id: 'api', approval_required_methods: ['POST', 'DELETE'], require_task: false, max_ttl_seconds: 60 },
          { id: 'bea-only', approval_required_methods: [], require_task: false, max_ttl_seconds: 300 },
          { id: 'tasked', approval_required_methods: [], require_task: true, max_ttl_seconds: 10 },
        ],
      });
      const agent = await list(botKey);
      assert.deepEqual(
        agent.body.connections.map((c: { id: string }) => c.id),
        ['api', 'agents-only', 'tasked'],
      );
      assert.doesNotMatch(JSON.stringify([human.body, agent.body]), /dest-|destination/i);
      assert.deepEqual((await list(bea.session, 'yard')).body.connections.map((c: { id: string }) => c.id), ['elsewhere']);
    });

    it('lists for admitted members only: 401 without a credential, 403 before joining, 404 for no Space', async () => {
      assert.equal((await server.request('GET', '/v0/spaces/lab/external-connections')).status, 401);
      const outsider = await list(cal.session);
      assertError(outsider, 'not_admitted');
      // An Owner/Host role is not membership.
      assert.equal((await list(host.session)).status, 403);
      assert.equal((await list(bea.session, 'nowhere')).status, 404);
    });

    it('refuses every bad call itself, with its code and status, and never asks the gateway', async () => {
      const ok = { connection_id: 'bea-only', purpose: 'read the items', request: get };
      const refusals: Array<[string, string, unknown, number, ErrorCode]> = [
        ['unknown connection', bea.session, { ...ok, connection_id: 'nope' }, 404, 'connection_not_found'],
        ["another Space's connection", bea.session, { ...ok, connection_id: 'elsewhere' }, 404, 'connection_not_found'],
        ['a connection for agents only', bea.session, { ...ok, connection_id: 'agents-only' }, 404, 'connection_not_found'],
        ["a connection for another actor", botKey, ok, 404, 'connection_not_found'],
        ['ftp', bea.session, { ...ok, request: { method: 'GET', url: 'ftp://api.example.test/x' } }, 422, 'url_invalid'],
        ['a user name', bea.session, { ...ok, request: { method: 'GET', url: 'https://u:p@api.example.test/x' } }, 422, 'url_invalid'],
        ['a fragment', bea.session, { ...ok, request: { method: 'GET', url: 'https://api.example.test/x#frag' } }, 422, 'url_invalid'],
        ['a URL not in its normal form', bea.session, { ...ok, request: { method: 'GET', url: 'HTTPS://api.example.test/a/../x' } }, 422, 'url_invalid'],
        ['an encoded slash', bea.session, { ...ok, request: { method: 'GET', url: 'https://api.example.test/a%2fb' } }, 422, 'url_invalid'],
        ['an encoded dot', bea.session, { ...ok, request: { method: 'GET', url: 'https://api.example.test/a/%2E%2E/b' } }, 422, 'url_invalid'],
        ['a relative URL', bea.session, { ...ok, request: { method: 'GET', url: '/x' } }, 422, 'url_invalid'],
        ['Authorization', bea.session, { ...ok, request: { ...get, headers: { Authorization: 'Bearer mine' } } }, 403, 'header_denied'],
        ['Cookie', bea.session, { ...ok, request: { ...get, headers: { cookie: 'a=b' } } }, 403, 'header_denied'],
        ['a proxy header', bea.session, { ...ok, request: { ...get, headers: { 'Proxy-Authorization': 'x' } } }, 403, 'header_denied'],
        ['Host', bea.session, { ...ok, request: { ...get, headers: { host: 'evil.test' } } }, 403, 'header_denied'],
        ['a hop-by-hop header', bea.session, { ...ok, request: { ...get, headers: { 'Transfer-Encoding': 'chunked' } } }, 403, 'header_denied'],
        ['a header named twice', bea.session, { ...ok, request: { ...get, headers: { Accept: 'a', accept: 'b' } } }, 422, 'invalid_request'],
        ['a purpose of two lines', bea.session, { ...ok, purpose: 'one\ntwo' }, 422, 'invalid_request'],
        ['a body that is not base64', bea.session, { ...ok, request: { method: 'PUT', url: get.url, body: 'no!', bodyEncoding: 'base64' } }, 422, 'invalid_request'],
        ['no task for a connection that needs one', bea.session, { ...ok, connection_id: 'tasked' }, 422, 'task_required'],
        ['a task nobody claimed', bea.session, { ...ok, connection_id: 'tasked', task_id: 999 }, 403, 'task_not_claimed'],
        ['POST without an approval', bea.session, { ...ok, connection_id: 'api', request: { method: 'POST', url: get.url, body: '{}' } }, 403, 'approval_required'],
        ['an unknown approval', bea.session, { ...ok, connection_id: 'api', approval_id: 'capr_unknown', request: { method: 'POST', url: get.url } }, 403, 'approval_invalid'],
      ];
      for (const [what, token, body, status, code] of refusals) {
        for (const send of [call, ticket]) {
          const res = await send(token, body);
          assertError(res, code, what);
          assert.equal(res.status, status, what);
        }
      }
      for (const [what, purpose] of PURPOSES_REFUSED) {
        for (const send of [call, ticket]) {
          const res = await send(bea.session, { ...ok, purpose });
          assertError(res, purposeCode(purpose), what);
          // The words name the field and the character refused.
          assert.match(res.body.detail, /^(invalid_request: purpose must be one line without control or format characters \(found U\+[0-9A-F]{4,}\)|body\.purpose must be UTF-8 text without NUL)/, what);
        }
      }
      // Fields the protocol does not name, and a missing purpose, fail validation at the edge.
      assert.equal((await call(bea.session, { ...ok, destination_id: 'dest-bea' })).status, 422);
      assert.equal((await call(bea.session, { connection_id: 'bea-only', request: get })).status, 422);
      assert.equal((await call(bea.session, { ...ok, run_id: 'has space' })).status, 422);
      assert.deepEqual(gateway.requests, [], 'no refusal reached the gateway');
      assert.deepEqual(await runs(server), [], 'no refusal used a run id');
    });

    it('refuses a path some server would read as another (matrix parameters, double escapes, overlong UTF-8, folded dots) in calls, tickets and approvals', async () => {
      const approval = { connection_id: 'api', member_handle: 'bea-bot', run_id: 'run-path', purpose: 'p', reason: 'because' };
      const approvalsBefore = await approvalCount(server);
      for (const [what, path] of PATH_TRICKS) {
        const request = { method: 'GET', url: `https://api.example.test${path}` };
        assert.equal(new URL(request.url).href, request.url, what);
        for (const [res, kind] of [
          [await call(bea.session, { connection_id: 'bea-only', purpose: 'read', request }), 'call'],
          [await ticket(bea.session, { connection_id: 'bea-only', purpose: 'read', request }), 'ticket'],
          [await approve(host.session, { ...approval, request }), 'approval'],
        ] as const) {
          assertError(res, 'url_invalid', `${kind}, ${what}`);
        }
      }
      assert.deepEqual(gateway.requests, [], 'no refusal reached the gateway');
      assert.equal(await approvalCount(server), approvalsBefore);
    });

    it('refuses callers before anything else: 401, 403 for outsiders and the steward key, 409 when the Space is not active', async () => {
      const ok = { connection_id: 'api', purpose: 'read', request: get };
      assert.equal((await server.request('POST', '/v0/spaces/lab/credential-calls', { body: ok })).status, 401);
      assert.equal((await call(cal.session, ok)).status, 403);
      assert.equal((await call(STEWARD_KEY, ok)).status, 403);
      const proposed = await server.request('POST', '/v0/spaces', { token: bea.session, body: { slug: 'draft', name: 'draft' } });
      assert.equal(proposed.status, 201);
      // Nobody can join a proposed Space, so admission is seeded as an earlier join would have left it.
      const ts = new Date().toISOString();
      await server.app.ctx.db.kysely
        .insertInto('space_memberships')
        .values({ space: 'draft', member_handle: 'bea', state: 'admitted', created_ts: ts, updated_ts: ts })
        .execute();
      const notActive = await call(bea.session, ok, 'draft');
      assertError(notActive, 'space_not_active');
      assert.deepEqual(gateway.requests, []);
    });

    it('approvals: Owner/Host by session or key, or the steward key; agents and members 403', async () => {
      const body = {
        connection_id: 'api',
        member_handle: 'bea-bot',
        run_id: 'run-approved-1',
        purpose: 'create one item',
        reason: 'the weekly import',
        request: { method: 'POST', url: 'https://api.example.test/v1/items?token=q-secret', headers: { 'X-Trace': 'trace-secret', Accept: 'application/json' }, body: '{"n":1}' },
      };
      const created = await approve(host.session, body);
      assert.equal(created.status, 201, created.body?.detail);
      const approval = created.body;
      assert.match(approval.id, /^capr_[a-z2-7]{26}$/);
      assert.deepEqual(
        { ...approval, id: undefined, created_ts: undefined, expires_ts: undefined },
        {
          id: undefined,
          status: 'issued',
          space: 'lab',
          connection_id: 'api',
          member_handle: 'bea-bot',
          task_id: null,
          run_id: 'run-approved-1',
          purpose: 'create one item',
          method: 'POST',
          url: body.request.url,
          header_names: ['accept', 'x-trace'],
          body_sha256: createHash('sha256').update('{"n":1}').digest('hex'),
          created_by: 'hana',
          created_ts: undefined,
          expires_ts: undefined,
        },
      );
      assert.equal(Date.parse(approval.expires_ts) - Date.parse(approval.created_ts), 3600_000, 'an hour unless asked');
      assert.doesNotMatch(JSON.stringify(approval), /trace-secret/, 'header values are bound, not shown');

      assert.equal((await approve(hostKey, { ...body, run_id: 'run-approved-2', expires_in_seconds: 60 })).status, 201, 'a member key of an Owner/Host');
      const steward = await approve(STEWARD_KEY, { ...body, run_id: 'run-approved-3' });
      assert.equal(steward.status, 201);
      assert.equal(steward.body.created_by, null);
      assert.equal((await approve(botKey, body)).status, 403, 'an agent never approves');
      assert.equal((await approve(bea.session, body)).status, 403, 'a member without the role');
      assert.equal((await server.request('POST', '/v0/spaces/lab/credential-approvals', { body })).status, 401);

      const feed = await server.request('GET', '/v0/spaces/lab/events?limit=500', { token: bea.session });
      const events = feed.body.events.filter((e: { type: string }) => e.type === 'credential_approval_created');
      assert.equal(events.length, 3);
      assert.deepEqual(events[0].payload, {
        id: approval.id,
        connection_id: 'api',
        member_handle: 'bea-bot',
        task_id: null,
        run_id: 'run-approved-1',
        method: 'POST',
        host: 'api.example.test',
        expires_ts: approval.expires_ts,
      });
      assert.equal(events[0].actor, 'hana');
      assert.doesNotMatch(JSON.stringify(feed.body), /q-secret|trace-secret|"n":1/, 'no query, header or body values in events');

      // Owners/Hosts list what they granted, newest first, as it was shown when created.
      const listed = await server.request('GET', '/v0/spaces/lab/credential-approvals', { token: host.session });
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.approvals.map((a: { run_id: string; status: string }) => [a.run_id, a.status]),
        [
          ['run-approved-3', 'issued'],
          ['run-approved-2', 'issued'],
          ['run-approved-1', 'issued'],
        ],
      );
      assert.deepEqual(listed.body.approvals[2], approval);
      assert.doesNotMatch(JSON.stringify(listed.body), /trace-secret|weekly import/, 'neither header values nor the reason');
      assert.equal((await server.request('GET', '/v0/spaces/lab/credential-approvals', { token: STEWARD_KEY })).status, 200);
      assert.equal((await server.request('GET', '/v0/spaces/yard/credential-approvals', { token: host.session })).status, 403, 'a Host of another Space');
      assert.equal((await server.request('GET', '/v0/spaces/lab/credential-approvals', { token: botKey })).status, 403);
      assert.equal((await server.request('GET', '/v0/spaces/lab/credential-approvals', { token: bea.session })).status, 403);
      assert.equal((await server.request('GET', '/v0/spaces/lab/credential-approvals')).status, 401);
    });

    it('approvals: 422 for what nobody could use, leaving nothing behind', async () => {
      const body = {
        connection_id: 'api',
        member_handle: 'bea-bot',
        run_id: 'run-x',
        purpose: 'p',
        reason: 'because',
        request: { method: 'DELETE', url: 'https://api.example.test/v1/items/7' },
      };
      const before = await approvalCount(server);
      const cases: Array<[unknown, ErrorCode, RegExp?]> = [
        [{ ...body, connection_id: 'nope' }, 'invalid_request', /^invalid_request: connection_id: /],
        [{ ...body, connection_id: 'elsewhere' }, 'invalid_request', /^invalid_request: connection_id: /],
        [{ ...body, member_handle: 'nobody' }, 'invalid_request', /^invalid_request: member_handle: /],
        [{ ...body, member_handle: 'cal', connection_id: 'agents-only' }, 'invalid_request', /member_handle/],
        [{ ...body, member_handle: 'bea-bot', connection_id: 'bea-only' }, 'invalid_request', /member_handle/],
        [{ ...body, task_id: 4242 }, 'invalid_request', /^invalid_request: task_id: /],
        [{ ...body, expires_in_seconds: 0 }, 'validation_failed', /expires_in_seconds/],
        [{ ...body, expires_in_seconds: 86401 }, 'validation_failed', /expires_in_seconds/],
        [{ ...body, reason: 'no' }, 'validation_failed', /reason/],
        [{ ...body, run_id: undefined }, 'validation_failed', /run_id/],
        [{ ...body, request: { method: 'GET', url: 'https://api.example.test/a%2Fb' } }, 'url_invalid'],
        ...PURPOSES_REFUSED.map(([, purpose]): [unknown, ErrorCode, RegExp] => [{ ...body, purpose }, purposeCode(purpose), /purpose/]),
        [{ ...body, request: { method: 'GET', url: 'https://api.example.test/', headers: { Cookie: 'x' } } }, 'header_denied'],
      ];
      for (const [input, code, field] of cases) {
        const detail = assertError(await approve(host.session, input), code, JSON.stringify(input));
        // Which field is at fault is the point of a 422 here.
        if (field) assert.match(detail, field);
      }
      assert.equal(await approvalCount(server), before);
    });

    it('checks an approval against everything it binds, and a wrong one reaches no gateway', async () => {
      const request = { method: 'POST', url: 'https://api.example.test/v1/items', headers: { 'content-type': 'application/json' }, body: '{"n":2}' } as const;
      const approval = (
        await approve(host.session, { connection_id: 'api', member_handle: 'bea', run_id: 'run-bind', purpose: 'make it', reason: 'needed', request })
      ).body;
      const ok = { connection_id: 'api', approval_id: approval.id, run_id: 'run-bind', purpose: 'make it', request };
      const mismatches: Array<[string, unknown, string]> = [
        ['another run', { ...ok, run_id: 'run-other' }, bea.session],
        ['another purpose', { ...ok, purpose: 'make two' }, bea.session],
        ['another URL', { ...ok, request: { ...request, url: 'https://api.example.test/v1/items?x=1' } }, bea.session],
        ['another header value', { ...ok, request: { ...request, headers: { 'content-type': 'text/plain' } } }, bea.session],
        ['another header set', { ...ok, request: { ...request, headers: { 'content-type': 'application/json', accept: '*/*' } } }, bea.session],
        ['another body', { ...ok, request: { ...request, body: '{"n":3}' } }, bea.session],
        ['another method', { ...ok, request: { ...request, method: 'DELETE' } }, bea.session],
        ['a task it did not bind', { ...ok, connection_id: 'api', task_id: 1 }, bea.session],
        ['another member', ok, botKey],
      ];
      for (const [what, body, token] of mismatches) {
        const res = await call(token, body);
        if (what === 'a task it did not bind') {
          // No claim on task 1: the task check comes first.
          assert.equal(res.status, 403, what);
          continue;
        }
        assertError(res, 'approval_invalid', `${what}: ${res.body.detail}`);
      }
      // The same request with its header name in another case is the same request.
      const sameRequest = { ...ok, request: { ...request, headers: { 'Content-Type': 'application/json' } } };
      gateway.answer = { status: 403, body: { code: 'destination_denied', detail: 'no destination allows this path' } };
      const passedOn = await call(bea.session, sameRequest);
      assertError(passedOn, 'destination_denied');
      // The gateway's own words are passed on whole, behind its code.
      assert.equal(passedOn.body.detail, 'destination_denied: no destination allows this path', "the gateway's refusal keeps its code");
      assert.equal(gateway.requests.length, 1, 'only the matching call reached the gateway');
      const sent = gateway.requests[0]!;
      assert.equal(sent.url, '/v1/tickets');
      assert.equal(sent.authorization, `Bearer ${ISSUER_KEY}`);
      assert.deepEqual(sent.body, {
        request_id: (sent.body as { request_id: string }).request_id,
        space: 'lab',
        connection_id: 'api',
        destination_id: 'dest-api',
        member: `${server.url}/v0/members/bea`,
        member_type: 'human',
        operator: `${server.url}/v0/members/bea`,
        task_id: null,
        run_id: 'run-bind',
        purpose: 'make it',
        approval_id: approval.id,
        ttl_seconds: 30,
        request: { method: 'POST', url: request.url, headers: { 'content-type': 'application/json' }, body_base64: Buffer.from('{"n":2}').toString('base64') },
      });
      // The refusal used up neither the approval nor the run.
      assert.deepEqual(await runs(server), []);
      const row = await server.app.ctx.db.kysely.selectFrom('credential_approvals').select('consumed_ts').where('id', '=', approval.id).executeTakeFirstOrThrow();
      assert.equal(row.consumed_ts, null);
      gateway.requests.length = 0;
    });

    it('an approval expires: then it is approval_invalid, and the call reaches no gateway', async () => {
      const clock = new TestClock();
      const timed = await startServer(backend, {
        clock,
        env: { ATRIUM_CREDENTIAL_CONNECTIONS: join(dir, 'connections.json'), ATRIUM_GATEWAY_URL: gateway.url, ATRIUM_GATEWAY_ISSUER_KEY: ISSUER_KEY },
      });
      try {
        const ann = await timed.human('ann');
        await activeSpace(timed, ann.session, 'lab');
        assert.equal((await timed.request('POST', '/v0/spaces/lab/join', { token: ann.session })).status, 200);
        const request = { method: 'POST', url: 'https://api.example.test/v1/late' };
        const approval = await timed.request('POST', '/v0/spaces/lab/credential-approvals', {
          token: STEWARD_KEY,
          body: { connection_id: 'api', member_handle: 'ann', run_id: 'run-late', purpose: 'late', reason: 'testing expiry', expires_in_seconds: 60, request },
        });
        assert.equal(approval.status, 201, approval.body?.detail);
        assert.equal(approval.body.expires_ts, new Date(clock.now().getTime() + 60_000).toISOString());
        clock.advance(60_000);
        const seen = gateway.requests.length;
        const late = await timed.request('POST', '/v0/spaces/lab/credential-calls', {
          token: ann.session,
          body: { connection_id: 'api', approval_id: approval.body.id, run_id: 'run-late', purpose: 'late', request },
        });
        assertError(late, 'approval_invalid');
        assert.equal(gateway.requests.length, seen);
      } finally {
        await timed.stop();
      }
    });

    it('caps the ticket lifetime at the connection, and answers 503 gateway_unavailable when the gateway is down', async () => {
      gateway.answer = { status: 503, body: { code: 'audit_unavailable', detail: 'ledger down' } };
      const ledgerDown = await ticket(botKey, { connection_id: 'api', purpose: 'p', ttl_seconds: 9999, request: get });
      assertError(ledgerDown, 'audit_unavailable');
      // The gateway's own words are passed on whole, behind its code.
      assert.equal(ledgerDown.body.detail, 'audit_unavailable: ledger down');
      assert.equal((gateway.requests.at(-1)!.body as { ttl_seconds: number }).ttl_seconds, 60);
      assert.equal((gateway.requests.at(-1)!.body as { operator: string }).operator, `${server.url}/v0/members/bea`, "an agent's accountable principal");

      const port = await freePort();
      const down = await startServer(backend, {
        env: { ATRIUM_CREDENTIAL_CONNECTIONS: join(dir, 'connections.json'), ATRIUM_GATEWAY_URL: `http://127.0.0.1:${port}`, ATRIUM_GATEWAY_ISSUER_KEY: ISSUER_KEY },
      });
      try {
        const ann = await down.human('ann');
        await activeSpace(down, ann.session, 'lab');
        assert.equal((await down.request('POST', '/v0/spaces/lab/join', { token: ann.session })).status, 200);
        const res = await down.request('POST', '/v0/spaces/lab/credential-calls', {
          token: ann.session,
          body: { connection_id: 'api', run_id: 'run-down', purpose: 'p', request: get },
        });
        assertError(res, 'gateway_unavailable');
        assert.deepEqual(await runs(down), [], 'an unreachable gateway uses nothing up');
      } finally {
        await down.stop();
      }
    });
  });
}

for (const backend of backends()) {
  describe(`credential calls, what the service reads of the gateway's answer (${backend})`, () => {
    let server: TestServer;
    let standIn: Server;
    let dir: string;
    let botKey: string;
    /** How the stand-in gateway answers `/v1/call`; `/v1/tickets` always issues. */
    let answerCall: (res: ServerResponse) => void = () => {};

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'atrium-credentials-answers-'));
      const path = join(dir, 'connections.json');
      writeFileSync(path, JSON.stringify(CONNECTIONS));
      standIn = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          if (req.url === '/v1/tickets') res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ticket: 'a.b.c', expires_ts: new Date(Date.now() + 30_000).toISOString() }));
          else answerCall(res);
        });
      });
      const port = await freePort();
      await new Promise<void>((resolve) => standIn.listen(port, '127.0.0.1', resolve));
      server = await startServer(backend, {
        env: { ATRIUM_CREDENTIAL_CONNECTIONS: path, ATRIUM_GATEWAY_URL: `http://127.0.0.1:${port}`, ATRIUM_GATEWAY_ISSUER_KEY: ISSUER_KEY },
      });
      const bea = await server.human('bea');
      botKey = (await seedAgent(server, 'bea-bot', 'bea', 'active')).key;
      await activeSpace(server, bea.session, 'lab');
      assert.equal((await server.request('POST', '/v0/spaces/lab/join', { token: botKey })).status, 200);
    });
    after(async () => {
      await server.stop();
      standIn.closeAllConnections();
      await new Promise<void>((resolve) => standIn.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    });

    const call = (runId: string) =>
      server.request('POST', '/v0/spaces/lab/credential-calls', {
        token: botKey,
        body: { connection_id: 'agents-only', run_id: runId, purpose: 'read', request: { method: 'GET', url: 'https://api.example.test/v1/items' } },
      });

    it(`reads no more than ${MAX_CALL_ANSWER_BYTES} bytes of an answer, whatever the gateway sends: 502 response_too_large`, async () => {
      // Declared too long: refused on its headers, nothing of the body read.
      answerCall = (res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_CALL_ANSWER_BYTES + 1) });
        res.write('{"status":200,');
        res.on('error', () => {});
      };
      const declared = await call('run-declared');
      assertError(declared, 'response_too_large', JSON.stringify(declared.body));

      // Sent without a length: read up to the ceiling, then refused.
      answerCall = (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const piece = Buffer.alloc(1024 * 1024, 'A');
        let sent = 0;
        const more = () => {
          while (sent <= MAX_CALL_ANSWER_BYTES) {
            sent += piece.length;
            if (!res.write(piece)) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('error', () => {});
        res.write('{"status":200,"headers":{},"bodyBase64":"');
        more();
      };
      const streamed = await call('run-streamed');
      assertError(streamed, 'response_too_large', JSON.stringify(streamed.body));
    });

    it('answers the same whether the gateway writes its answer in the canonical form or another', async () => {
      const result = { status: 201, headers: { 'content-type': 'text/plain', 'x-note': 'caf\u00e9 "quoted"' }, bodyBase64: Buffer.from('hello').toString('base64'), provider_request_id: 'p-1' };
      answerCall = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      const canonical = await call('run-canonical');
      assert.equal(canonical.status, 200, JSON.stringify(canonical.body));
      assert.deepEqual(canonical.body, { run_id: 'run-canonical', ...result });
      // Another key order, spacing and escaping: parsed and checked whole, then answered the same.
      answerCall = (res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          `{ "provider_request_id": "p-1", "bodyBase64": "${result.bodyBase64}", "headers": {"content-type": "text/plain", "x-note": "caf\\u00e9 \\"quoted\\""}, "status": 201 }`,
        );
      const other = await call('run-other-form');
      assert.equal(other.status, 200, JSON.stringify(other.body));
      assert.deepEqual(other.body, { run_id: 'run-other-form', ...result });
      // A decoy body key in the headers and a repeated key: read as JSON reads it, and answered exactly as read.
      answerCall = (res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":200,"headers":{"bodyBase64":"QQ=="},"bodyBase64":"","provider_request_id":null,"bodyBase64":"Qg=="}');
      const decoy = await call('run-decoy');
      assert.deepEqual(decoy.body, { run_id: 'run-decoy', status: 200, headers: { bodyBase64: 'QQ==' }, bodyBase64: 'Qg==', provider_request_id: null });
    });

    it('answers 503 gateway_unavailable for an answer outside the protocol', async () => {
      const bad = [
        '{"status":200,"headers":{},"bodyBase64":"not base64!","provider_request_id":null}',
        '{"status":"200","headers":{},"bodyBase64":"","provider_request_id":null}',
        '{"status":200,"headers":{},"bodyBase64":"","provider_request_id":null,"extra":1}',
        'not json',
        '[1]',
      ];
      for (const [i, text] of bad.entries()) {
        answerCall = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(text);
        const res = await call(`run-bad-${i}`);
        assertError(res, 'gateway_unavailable', `${text}: ${JSON.stringify(res.body)}`);
      }
    });
  });
}

async function runs(server: TestServer): Promise<unknown[]> {
  return server.app.ctx.db.kysely.selectFrom('credential_runs').selectAll().execute();
}

async function approvalCount(server: TestServer): Promise<number> {
  const row = await server.app.ctx.db.kysely.selectFrom('credential_approvals').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
