import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, type TestResponse, type TestServer, type Person } from './support/server.js';
import { assertError } from './support/errors.js';

/**
 * One member must not be able to stall message posting for the host
 * (docs/mentions.md): finding mentions runs in a few workers, fed round-robin
 * from per-member queues, with a per-member cap (429), a host-wide queue bound
 * (503) and a budget counted from arrival.
 */

// List markers: 20000 characters of them take the CommonMark parser many seconds. The `@`
// makes it a body that may mention someone: only those are parsed at all.
const HOSTILE = '+ '.repeat(9999) + '@x';
const CHANNEL = '/v0/spaces/fair-room/channels/general/messages';

async function people(server: TestServer, handles: string[]): Promise<Person[]> {
  const out: Person[] = [];
  for (const handle of handles) out.push(await server.human(handle));
  await activeSpace(server, out[0]!.session, 'fair-room');
  return out;
}

async function messageCount(server: TestServer): Promise<number> {
  const db = server.app.ctx.db.kysely;
  return Number((await db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Starts every request at once and reports each settlement as it happens. */
function fire(requests: Array<() => Promise<TestResponse>>, onSettle: (r: TestResponse) => void): Promise<TestResponse[]> {
  return Promise.all(
    requests.map((send) =>
      send().then((r) => {
        onSettle(r);
        return r;
      }),
    ),
  );
}

for (const backend of backends()) {
  describe(`Mention parsing under load (${backend})`, () => {
    describe('one hostile member', () => {
      let server: TestServer;
      let mallory: Person;
      let alice: Person;
      before(async () => {
        server = await startServer(backend, {
          env: { ATRIUM_MENTION_PARSE_WORKERS: '2', ATRIUM_MENTION_PARSE_PER_MEMBER: '2', ATRIUM_MENTION_PARSE_QUEUE_LIMIT: '16' },
        });
        [mallory, alice] = (await people(server, ['mallory', 'alice'])) as [Person, Person];
      });
      after(() => server.stop());

      it("refuses the member's excess bodies with 429 and serves another member while theirs are in flight", async () => {
        const before = await messageCount(server);
        let settled = 0;
        let releaseTen!: () => void;
        const tenSettled = new Promise<void>((resolve) => (releaseTen = resolve));
        const hostile = fire(
          Array.from({ length: 12 }, () => () => server.request('POST', CHANNEL, { token: mallory.session, body: { body: HOSTILE } })),
          () => {
            settled += 1;
            if (settled === 10) releaseTen();
          },
        );
        // Ten are refused at once; the two the parser holds are still in flight.
        await tenSettled;
        const hi = await server.request('POST', CHANNEL, { token: alice.session, body: { body: 'hi @mallory' } });
        assert.equal(hi.status, 201);
        assert.deepEqual(hi.body.mentioned_members, ['mallory']);
        assert.equal(settled, 10, "alice's message was answered while mallory's two were still being checked");

        const answers = await hostile;
        const refused = answers.filter((r) => r.status === 429);
        assert.equal(refused.length, 10);
        for (const r of refused) {
          assertError(r, 'rate_limited');
          // Which limit: the member's own queue of messages awaiting a mention check.
          assert.match(r.body.detail, /at most 2 of your messages/);
          assert.ok(Number(r.headers.get('retry-after')) >= 1);
        }
        for (const r of answers.filter((a) => a.status !== 429)) assert.ok([422, 503].includes(r.status), `status ${r.status}`);
        assert.equal(await messageCount(server), before + 1, "only alice's message was written");
      });

      it('holds a JSON-RPC batch of such posts over MCP to the same cap', async () => {
        const before = await messageCount(server);
        const call = (id: number) => ({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'post_message', arguments: { slug: 'fair-room', channel: 'general', body: HOSTILE } },
        });
        const res = await fetch(`${server.url}/v0/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${mallory.session}`,
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
            // The last protocol version with batches.
            'mcp-protocol-version': '2025-03-26',
          },
          body: JSON.stringify(Array.from({ length: 8 }, (_, i) => call(i + 1))),
        });
        assert.equal(res.status, 200);
        const replies = (await res.json()) as Array<{ result: { isError?: boolean; _meta: Record<string, unknown> } }>;
        const statuses = replies.map((r) => r.result._meta['atrium/status']);
        assert.equal(statuses.filter((st) => st === 429).length, 6, `statuses ${statuses.join(',')}`);
        for (const st of statuses) assert.ok([422, 429, 503].includes(st as number), `status ${String(st)}`);
        assert.equal(await messageCount(server), before);
      });
    });

    describe('a full host-wide queue', () => {
      let server: TestServer;
      let crowd: Person[];
      before(async () => {
        server = await startServer(backend, {
          env: { ATRIUM_MENTION_PARSE_WORKERS: '1', ATRIUM_MENTION_PARSE_PER_MEMBER: '1', ATRIUM_MENTION_PARSE_QUEUE_LIMIT: '1' },
        });
        crowd = await people(server, ['amy', 'ben', 'cal', 'dee', 'eve']);
      });
      after(() => server.stop());

      it('answers 503 with Retry-After beyond the queue bound, writes nothing, and recovers', async () => {
        const before = await messageCount(server);
        const answers = await fire(
          crowd.slice(0, 4).map((p) => () => server.request('POST', CHANNEL, { token: p.session, body: { body: HOSTILE } })),
          () => {},
        );
        // One body parses and one may wait; the others find the queue full.
        const busy = answers.filter((r) => r.status === 503);
        assert.ok(busy.length >= 2, `statuses ${answers.map((r) => r.status).join(',')}`);
        for (const r of busy) {
          assertError(r, 'host_busy');
          assert.ok(Number(r.headers.get('retry-after')) >= 1);
        }
        for (const r of answers) assert.ok([422, 503].includes(r.status), `status ${r.status}`);
        assert.equal(await messageCount(server), before);

        const hi = await server.request('POST', CHANNEL, { token: crowd[4]!.session, body: { body: 'hello again' } });
        assert.equal(hi.status, 201);
      });
    });
  });
}
