import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { buildHttpServer } from '../src/http/server.js';
import { sharedSchemas } from '../src/operations/index.js';
import { ANY_CREDENTIAL, defineOperation, type AnyOperation } from '../src/operations/operation.js';
import { notFound } from '../src/shared/errors.js';
import { IdempotencyKeys } from '../src/shared/idempotency-keys.js';
import { TestClock } from './support/clock.js';
import { ContractChecker } from './support/contract.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/**
 * The `Idempotency-Key` mechanism (docs/idempotency.md), independent of any
 * real operation: an edge built over a real server's context (and so its real
 * database) with test-only operations that declare the flag, called over real
 * sockets. Every answer is checked against that edge's own contract.
 */

const HOUR = 60 * 60 * 1000;

/** What the test operations did, so a test can tell a replay from a second run. */
const state = {
  runs: 0,
  /** The next run throws 404 (an error answer, which must not be kept). */
  failNext: false,
  /** Runs wait for this before answering, to hold a request "still running". */
  gate: undefined as Promise<void> | undefined,
  /** Told when a run starts, so a test can wait for it without polling. */
  started: undefined as (() => void) | undefined,
};

const Thing = Type.Object(
  { name: Type.String(), note: Type.String(), tags: Type.Array(Type.String()), run: Type.Integer(), at: Type.String() },
  { additionalProperties: false },
);

async function makeThing(name: string, body: { note: string; tags?: string[] }, at: string) {
  const run = ++state.runs;
  state.started?.();
  if (state.gate) await state.gate;
  if (state.failNext) {
    state.failNext = false;
    throw notFound('member_not_found', 'told to fail');
  }
  return { name, note: body.note, tags: body.tags ?? [], run, at };
}

const thingInput = {
  params: Type.Object({ name: Type.String({ maxLength: 20 }) }),
  body: Type.Object({ note: Type.String({ maxLength: 100 }), tags: Type.Optional(Type.Array(Type.String())) }, { additionalProperties: false }),
  bodyRequired: true,
} as const;

const createThing = defineOperation({
  name: 'create_test_thing',
  who: 'members',
  method: 'POST',
  path: '/v0/test-things/{name}',
  tag: 'Discovery',
  summary: 'Create a test thing',
  description: 'Test only: counts its runs.',
  auth: { anonymous: false, schemes: ANY_CREDENTIAL },
  ...thingInput,
  success: { status: 201, description: 'The thing, with the number of the run that made it.', schema: Thing },
  errors: [404],
  idempotencyKey: true,
  handler: async ({ params, body, ctx }) => makeThing(params.name, body, ctx.clock.now().toISOString()),
});

const touchThing = defineOperation({
  name: 'touch_test_thing',
  who: 'members',
  method: 'POST',
  path: '/v0/test-things/{name}/touch',
  tag: 'Discovery',
  summary: 'Touch a test thing',
  description: 'Test only: counts its runs, answers 204.',
  auth: { anonymous: false, schemes: ANY_CREDENTIAL },
  params: thingInput.params,
  success: { status: 204, description: 'Touched.' },
  errors: [],
  idempotencyKey: true,
  handler: async () => {
    state.runs++;
  },
});

const plainThing = defineOperation({
  name: 'create_plain_test_thing',
  who: 'members',
  method: 'POST',
  path: '/v0/plain-test-things/{name}',
  tag: 'Discovery',
  summary: 'Create a test thing without idempotency keys',
  description: 'Test only: counts its runs.',
  auth: { anonymous: false, schemes: ANY_CREDENTIAL },
  ...thingInput,
  success: { status: 201, description: 'The thing.', schema: Thing },
  errors: [],
  handler: async ({ params, body, ctx }) => makeThing(params.name, body, ctx.clock.now().toISOString()),
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

interface Contract {
  paths: Record<string, Record<string, { parameters?: Array<Record<string, unknown>>; responses: Record<string, unknown> }>>;
}

for (const backend of backends()) {
  describe(`Idempotency-Key (${backend})`, () => {
    const clock = new TestClock();
    let server: TestServer;
    let edge: FastifyInstance;
    let url: string;
    let contract: ContractChecker;
    let alice: string;
    let bob: string;
    let keyCounter = 0;
    /** A key no earlier test used. */
    const freshKey = () => `test-key-${backend}-${++keyCounter}-${'x'.repeat(8)}`;

    before(async () => {
      server = await startServer(backend, { clock });
      edge = await buildHttpServer(server.app.ctx, { operations: [createThing, touchThing, plainThing], sharedSchemas });
      await edge.listen({ host: '127.0.0.1', port: 0 });
      url = `http://127.0.0.1:${(edge.server.address() as AddressInfo).port}`;
      contract = new ContractChecker(edge.swagger() as never);
      alice = (await server.human('alice')).session;
      bob = (await server.human('bob')).session;
    });
    after(async () => {
      await edge?.close();
      await server?.stop();
    });
    beforeEach(() => {
      state.failNext = false;
      state.gate = undefined;
    });

    const post = async (path: string, opts: { token: string; key?: string; body?: unknown; rawBody?: string }): Promise<Answer> => {
      const headers: Record<string, string> = { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' };
      if (opts.key !== undefined) headers['idempotency-key'] = opts.key;
      const body = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
      const res = await fetch(url + path, { method: 'POST', headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.text();
      const parsed = text === '' ? undefined : JSON.parse(text);
      contract.check('POST', path, res.status, parsed);
      return { status: res.status, headers: res.headers, text, body: parsed };
    };

    it('declares the optional header, with its pattern, and the answers it adds, on flagged operations only', () => {
      const doc = edge.swagger() as unknown as Contract;
      const flagged = doc.paths['/v0/test-things/{name}']!.post!;
      const header = flagged.parameters!.find((p) => p.in === 'header')!;
      assert.equal(header.name, 'idempotency-key');
      assert.notEqual(header.required, true);
      assert.deepEqual(header.schema, { type: 'string', pattern: '^[\\x21-\\x7E]{8,128}$' });
      assert.match(String(header.description), /24 hours/);
      for (const status of ['201', '409', '422']) assert.ok(flagged.responses[status], `create_test_thing documents ${status}`);
      const plain = doc.paths['/v0/plain-test-things/{name}']!.post!;
      assert.equal(
        (plain.parameters ?? []).some((p) => p.in === 'header'),
        false,
      );
    });

    it('answers a retry with the first answer, byte for byte, without running again', async () => {
      const key = freshKey();
      const runs = state.runs;
      const first = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil', tags: ['a', 'b'] } });
      assert.equal(first.status, 201);
      assert.equal(first.body.run, runs + 1);
      clock.advance(1000);
      // The same JSON, written another way: other key order, other spacing, escapes.
      const retry = await post('/v0/test-things/kettle', { token: alice, key, rawBody: '{ "tags": ["a","b"],\n "note": "\\u0062oil" }' });
      assert.equal(retry.status, 201);
      assert.equal(retry.text, first.text);
      assert.equal(state.runs, runs + 1);
    });

    it('keeps a 204 as a 204 with no body', async () => {
      const key = freshKey();
      const runs = state.runs;
      const first = await post('/v0/test-things/kettle/touch', { token: alice, key });
      const retry = await post('/v0/test-things/kettle/touch', { token: alice, key });
      assert.deepEqual([first.status, first.text, retry.status, retry.text], [204, '', 204, '']);
      assert.equal(state.runs, runs + 1);
    });

    it('refuses the same key with a different body (422), and keeps the first answer for the first body', async () => {
      const key = freshKey();
      const first = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      const runs = state.runs;
      const other = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil', tags: [] } });
      assertError(other, 'idempotency_key_reused');
      assert.equal(state.runs, runs);
      const again = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      assert.equal(again.text, first.text);
    });

    it('refuses a malformed key with 422 naming the header, before anything runs', async () => {
      const runs = state.runs;
      for (const key of ['short', 'x'.repeat(129), 'has a space', 'tab\there-xx', '']) {
        const res = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
        assertError(res, 'validation_failed', JSON.stringify(key));
        // The detail names the header at fault, and its limits.
        assert.match(res.body.detail, /idempotency-key must be 8 to 128 visible ASCII characters/i, JSON.stringify(key));
      }
      for (const key of ['12345678', 'x'.repeat(128), '!~"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}']) {
        const res = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
        assert.equal(res.status, 201, key);
      }
      assert.equal(state.runs, runs + 3);
    });

    it('answers 409 while the first request with the key is still running, then replays its answer', async () => {
      const key = freshKey();
      let open!: () => void;
      state.gate = new Promise<void>((resolve) => (open = resolve));
      const runs = state.runs;
      const running = new Promise<void>((resolve) => (state.started = resolve));
      const first = post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      await running;
      state.started = undefined;
      const during = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      assertError(during, 'idempotency_key_running');
      // Another body is refused for what it is even while the first runs.
      const otherBody = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'steam' } });
      assert.equal(otherBody.status, 422);
      open();
      const answered = await first;
      assert.equal(answered.status, 201);
      const after = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      assert.equal(after.text, answered.text);
      assert.equal(state.runs, runs + 1);
    });

    it('runs exactly one of many concurrent first requests; the others get 409 or its answer', async () => {
      for (let round = 0; round < 3; round++) {
        const key = freshKey();
        const runs = state.runs;
        const answers = await Promise.all(
          Array.from({ length: 12 }, () => post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } })),
        );
        assert.equal(state.runs, runs + 1, 'one run');
        const winner = answers.find((a) => a.status === 201)!;
        assert.ok(winner);
        for (const answer of answers) {
          assert.ok(answer.status === 409 || answer.text === winner.text, `${answer.status} ${answer.text}`);
        }
      }
    });

    it('keeps no error answer: after a failure the same key runs again', async () => {
      const key = freshKey();
      const runs = state.runs;
      state.failNext = true;
      const failed = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      assert.equal(failed.status, 404);
      const retried = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      assert.equal(retried.status, 201);
      assert.equal(retried.body.run, runs + 2);
      // Nor is the failed body held against the key: the retry may differ.
      const otherKey = freshKey();
      state.failNext = true;
      assert.equal((await post('/v0/test-things/kettle', { token: alice, key: otherKey, body: { note: 'boil' } })).status, 404);
      assert.equal((await post('/v0/test-things/kettle', { token: alice, key: otherKey, body: { note: 'steam' } })).status, 201);
    });

    it('keeps keys per caller and per path: the same key elsewhere runs on its own', async () => {
      const key = freshKey();
      const body = { note: 'boil' };
      const runs = state.runs;
      const mine = await post('/v0/test-things/kettle', { token: alice, key, body });
      const theirs = await post('/v0/test-things/kettle', { token: bob, key, body });
      const steward = await post('/v0/test-things/kettle', { token: STEWARD_KEY, key, body });
      const elsewhere = await post('/v0/test-things/teapot', { token: alice, key, body });
      assert.deepEqual(
        [mine, theirs, steward, elsewhere].map((a) => [a.status, a.body.run]),
        [
          [201, runs + 1],
          [201, runs + 2],
          [201, runs + 3],
          [201, runs + 4],
        ],
      );
      // Each keeps its own answer; bob's other body is no concern of alice's key.
      assert.equal((await post('/v0/test-things/kettle', { token: alice, key, body })).text, mine.text);
      assert.equal((await post('/v0/test-things/kettle', { token: STEWARD_KEY, key, body })).text, steward.text);
      const rows = await server.app.ctx.db.kysely.selectFrom('idempotency_keys').select('owner').where('key', '=', key).execute();
      assert.deepEqual(rows.map((r) => r.owner).sort(), ['(steward)', 'alice', 'alice', 'bob']);
    });

    it('ignores the header on operations that do not declare it', async () => {
      const key = freshKey();
      const runs = state.runs;
      const first = await post('/v0/plain-test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      const second = await post('/v0/plain-test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      const malformed = await post('/v0/plain-test-things/kettle', { token: alice, key: 'bad', body: { note: 'boil' } });
      assert.deepEqual([first.status, second.status, malformed.status], [201, 201, 201]);
      assert.equal(state.runs, runs + 3);
      const rows = await server.app.ctx.db.kysely.selectFrom('idempotency_keys').select('key').where('key', '=', key).execute();
      assert.deepEqual(rows, []);
    });

    it('keeps a key for 24 hours by the injected clock, then forgets it', async () => {
      const key = freshKey();
      const first = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } });
      const runs = state.runs;
      clock.advance(24 * HOUR - 1);
      assert.equal((await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'boil' } })).text, first.text);
      assert.equal((await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'steam' } })).status, 422);
      clock.advance(1);
      // Expired: the key is free again, for any body, and the new answer is the one kept.
      const fresh = await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'steam' } });
      assert.equal(fresh.status, 201);
      assert.equal(fresh.body.run, runs + 1);
      assert.equal((await post('/v0/test-things/kettle', { token: alice, key, body: { note: 'steam' } })).text, fresh.text);
      // Expired records of every caller are swept too (at most hourly), not only a key that comes back.
      clock.advance(HOUR);
      assert.equal((await post('/v0/test-things/kettle', { token: bob, key: freshKey(), body: { note: 'boil' } })).status, 201);
      const cutoff = new Date(clock.now().getTime() - 24 * HOUR).toISOString();
      const expired = await server.app.ctx.db.kysely.selectFrom('idempotency_keys').select('key').where('created_ts', '<=', cutoff).execute();
      assert.deepEqual(expired, []);
      const kept = await server.app.ctx.db.kysely.selectFrom('idempotency_keys').select(['key', 'state']).where('key', '=', key).execute();
      assert.deepEqual(kept, [{ key, state: 'done' }]);
    });

    it('lets exactly one of many racing claims run, also over an expired record', async () => {
      const keys = new IdempotencyKeys(server.app.ctx.db.kysely, clock);
      const request = { owner: 'alice', method: 'POST', path: '/v0/test-things/race', key: freshKey() };
      const race = async (hash: string) => {
        const claims = await Promise.all(Array.from({ length: 10 }, () => keys.claim(request, hash)));
        return claims.map((c) => c.outcome).sort();
      };
      assert.deepEqual(await race('first'), ['run', ...Array<string>(9).fill('running')]);
      // The same record a day old, as a node finds it between its hourly sweeps: overwritten by one claim only.
      const dayAgo = new Date(clock.now().getTime() - 24 * HOUR).toISOString();
      const db = server.app.ctx.db.kysely;
      await db.updateTable('idempotency_keys').set({ state: 'done', status: 201, response: '{}', created_ts: dayAgo }).where('key', '=', request.key).execute();
      assert.deepEqual(await race('second'), ['run', ...Array<string>(9).fill('running')]);
      const row = await db.selectFrom('idempotency_keys').select(['request_hash', 'state', 'created_ts']).where('key', '=', request.key).executeTakeFirstOrThrow();
      assert.deepEqual(row, { request_hash: 'second', state: 'running', created_ts: clock.now().toISOString() });
    });
  });
}

describe('Idempotency-Key declarations', () => {
  it('are refused on reads and on operations open to anonymous callers', async () => {
    const server = await startServer('sqlite');
    try {
      const base = { ...createThing, idempotencyKey: true } as AnyOperation;
      const read = { ...base, name: 'read_thing', method: 'GET' } as AnyOperation;
      const open = { ...base, name: 'open_thing', auth: { anonymous: true, schemes: ANY_CREDENTIAL } } as AnyOperation;
      await assert.rejects(buildHttpServer(server.app.ctx, { operations: [read], sharedSchemas }), /read_thing: idempotencyKey is for writes/);
      await assert.rejects(buildHttpServer(server.app.ctx, { operations: [open], sharedSchemas }), /open_thing: idempotencyKey needs an authenticated caller/);
    } finally {
      await server.stop();
    }
  });
});
