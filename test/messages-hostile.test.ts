import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, startServer, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/**
 * Some Markdown under the body limit makes the CommonMark parser run for
 * seconds. Mentions are found in a worker thread with a time budget, before
 * any transaction: such a message is refused with 422, nothing is written, and
 * the next message is parsed by a fresh worker.
 */
for (const backend of backends()) {
  describe(`Hostile Markdown (${backend})`, () => {
    let server: TestServer;
    let alice: { handle: string; session: string };
    before(async () => {
      // A small budget: the hostile body below needs seconds, a normal one well under a millisecond.
      server = await startServer(backend, { env: { ATRIUM_MENTION_PARSE_TIMEOUT_MS: '250' } });
      alice = await server.human('alice');
      const owner = await server.human('hostile-owner', { role: 'owner' });
      await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'hostile', name: 'Hostile' } });
      assert.equal((await server.request('POST', '/v0/spaces/hostile/approve', { token: owner.session })).status, 200);
    });
    after(() => server.stop());

    const counts = async () => {
      const db = server.app.ctx.db.kysely;
      const messages = await db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      const events = await db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      return { messages: Number(messages.n), events: Number(events.n) };
    };

    it('refuses a message too expensive to parse, writes nothing, and keeps serving', async () => {
      const before = await counts();
      // The `@` makes it a body that may mention someone: only those are parsed at all.
      const hostile = '*'.repeat(9990) + 'a' + '*'.repeat(9990) + ' @x';
      const refused = await server.request('POST', '/v0/spaces/hostile/channels/general/messages', {
        token: alice.session,
        body: { body: hostile },
      });
      assertError(refused, 'mention_too_complex');
      assert.deepEqual(await counts(), before);

      const normal = await server.request('POST', '/v0/spaces/hostile/channels/general/messages', {
        token: alice.session,
        body: { body: 'after that, hello @hostile-owner' },
      });
      assert.equal(normal.status, 201);
      assert.deepEqual(normal.body.mentioned_members, ['hostile-owner']);
    });

    it('never parses a body without an @: it cannot mention anyone, however hard it would be to parse', async () => {
      // The same body as above without its `@`: within this budget a parse would be refused as too complex.
      const plain = '*'.repeat(9990) + 'a' + '*'.repeat(9990);
      const posted = await server.request('POST', '/v0/spaces/hostile/channels/general/messages', { token: alice.session, body: { body: plain } });
      assert.equal(posted.status, 201);
      assert.deepEqual(posted.body.mentioned_members, []);
      // Escaped and referenced spellings of `@` never mention anyone either, and still need the `@` to be parsed.
      const escaped = await server.request('POST', '/v0/spaces/hostile/channels/general/messages', {
        token: alice.session,
        body: { body: 'see \\@hostile-owner and &#64;hostile-owner' },
      });
      assert.deepEqual(escaped.body.mentioned_members, []);
    });
  });
}
