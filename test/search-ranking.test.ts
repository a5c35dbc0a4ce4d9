import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { findMember } from '../src/members/service.js';
import { postMessage } from '../src/messages/service.js';
import type { SearchPage } from '../src/search/schemas.js';
import { RANKED_MATCHES } from '../src/search/service.js';
import { withSearchTimeout } from '../src/search/statement-timeout.js';
import { AtriumError } from '../src/shared/errors.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';

/**
 * What bounds one search (docs/search.md, "Ranking, order and pages"):
 * relevance ranks only the newest RANKED_MATCHES matches the caller may read,
 * so a very relevant record older than those is not ranked, while matches the
 * caller cannot read never push a readable one out; and on PostgreSQL a search
 * statement that runs out of time is a 422, never a 5xx.
 */
for (const backend of backends()) {
  describe(`search ranking bound (${backend})`, () => {
    let server: TestServer;
    let alice: { handle: string; session: string };
    let oldest: number;

    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_SEARCH_ANONYMOUS_RATE_LIMIT: '100000' } });
      alice = await server.human('alice', { role: 'owner' });
      await activeSpace(server, alice.session, 'plaza');
      await activeSpace(server, alice.session, 'vault', 'invite');
      assert.equal((await server.request('POST', '/v0/spaces/vault/invitations', { token: alice.session, body: { member: 'alice' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/vault/join', { token: alice.session })).status, 200);
      const posted = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', {
        token: alice.session,
        body: { body: 'boundword boundword boundword boundword, the best match there is' },
      });
      assert.equal(posted.status, 201);
      oldest = (posted.body as { id: number }).id;
      // Newer matches, each weaker, in a Space anonymous callers cannot read and its member can.
      const member = (await findMember(server.app.ctx.db.kysely, 'alice'))!;
      const actor = { kind: 'member', member, credential: { type: 'session', id: 'test' } } as const;
      for (let batch = 0; batch < RANKED_MATCHES / 100; batch++) {
        await server.app.ctx.db.transaction(async (tx) => {
          for (let i = 0; i < 100; i++) {
            await postMessage(tx, actor, 'vault', { channel: 'general' }, { text: `boundword once among many other words, number ${batch * 100 + i}`, candidates: [] });
          }
        });
      }
    });
    after(() => server.stop());

    /** Every result of a search, following `next_cursor` to the end. */
    const everyResult = async (q: string, token: string | undefined, sort?: 'newest'): Promise<number[]> => {
      const ids: number[] = [];
      let cursor: string | undefined;
      for (;;) {
        const query = new URLSearchParams({ q, limit: '100', ...(sort ? { sort } : {}), ...(cursor ? { cursor } : {}) });
        const res = await server.request('GET', `/v0/search?${query}`, { token });
        assert.equal(res.status, 200);
        const page = res.body as SearchPage;
        ids.push(...page.results.map((r) => r.id as number));
        if (page.next_cursor === null) return ids;
        cursor = page.next_cursor;
      }
    };

    it('ranks only the newest matches the caller may read: an older best match falls outside for one who reads more', async () => {
      const owner = await everyResult('boundword', alice.session);
      assert.equal(owner.length, RANKED_MATCHES);
      assert.ok(!owner.includes(oldest), 'older than the newest matches the Owner may read, so not ranked');
      // Narrowed by an operator, it is among the newest again, and ranked first.
      assert.equal((await everyResult('boundword in:plaza', alice.session))[0], oldest);
      assert.equal((await everyResult('boundword best', alice.session))[0], oldest);
    });

    it("never lets matches the caller cannot read push out one they can", async () => {
      assert.deepEqual(await everyResult('boundword', undefined), [oldest]);
    });

    it('orders sort=newest by time over every match, not only the ranked ones', async () => {
      const newest = await everyResult('boundword', alice.session, 'newest');
      assert.equal(newest.length, RANKED_MATCHES);
      assert.deepEqual(newest, [...newest].sort((a, b) => b - a));
      assert.deepEqual(await everyResult('boundword', undefined, 'newest'), [oldest]);
    });

    it('ranks words with from: as the words alone rank that author, whichever the query starts from', async () => {
      // On SQLite a from: of few documents leads the query (src/search/service.ts, authorLed): the
      // same results, in the same order, as the match leading and from: filtering.
      const bob = await server.human('bob');
      assert.equal((await server.request('POST', '/v0/spaces/plaza/join', { token: bob.session })).status, 200);
      const bobs: number[] = [];
      for (const [i, body] of ['boundword', 'boundword boundword boundword', 'boundword among words', 'boundword boundword', 'nothing here', 'boundword again, kept out'].entries()) {
        const res = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: bob.session, body: { body: `${body} ${i}` } });
        assert.equal(res.status, 201);
        if (body.startsWith('boundword')) bobs.push((res.body as { id: number }).id);
      }
      const alone = (await everyResult('boundword', alice.session)).filter((id) => bobs.includes(id));
      assert.equal(alone.length, bobs.length);
      assert.deepEqual(await everyResult('boundword from:bob', alice.session), alone);
      assert.deepEqual(await everyResult('boundword from:bob', alice.session, 'newest'), [...bobs].reverse());
      assert.deepEqual(
        await everyResult('boundword -kept from:bob', alice.session),
        alone.filter((id) => id !== bobs.at(-1)),
      );
      assert.deepEqual(await everyResult('boundword from:bob in:vault', alice.session), []);
    });

    if (backend === 'postgres') {
      it('refuses a search statement that runs out of time with search_too_broad, and leaves no timeout on the connection', async () => {
        const db = server.app.ctx.db;
        await assert.rejects(
          // A statement that cannot finish within the 20 ms timeout (a billion rows counted), with no sleep in it.
          withSearchTimeout(db, (run) => sql`select count(*) from generate_series(1, 1000000000)`.execute(run), 20),
          (err) => err instanceof AtriumError && err.code === 'search_too_broad' && err.status === 422,
        );
        const settings = await Promise.all(
          Array.from({ length: 12 }, () => sql<{ statement_timeout: string }>`show statement_timeout`.execute(db.kysely)),
        );
        assert.deepEqual(new Set(settings.map((s) => s.rows[0]!.statement_timeout)), new Set(['0']));
      });
    }
  });
}
