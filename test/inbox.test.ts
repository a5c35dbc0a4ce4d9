import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lastCursor, type ContractPage } from './support/events.js';
import { seedAgent, seedMemberKey, setMemberStatus } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type Person, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/** protocol: Feeds (`GET /v0/me/inbox-events`). */
for (const backend of backends()) {
  describe(`Inbox feed (${backend})`, () => {
    let server: TestServer;
    let alice: Person;
    let bob: Person;
    let carol: Person;
    let owner: Person;

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      bob = await server.human('bob');
      carol = await server.human('carol');
      owner = await server.human('olivia', { role: 'owner' });
      for (const [slug, join_policy] of [
        ['plaza', 'open'],
        ['club', 'request'],
        ['vault', 'invite'],
      ] as const) {
        await activeSpace(server, alice.session, slug, join_policy);
      }
      for (const who of [alice, bob]) {
        assert.equal((await server.request('POST', '/v0/spaces/vault/invitations', { token: owner.session, body: { member: who.handle } })).status, 201);
        assert.equal((await server.request('POST', '/v0/spaces/vault/join', { token: who.session })).status, 200);
      }
      assert.equal((await server.request('POST', '/v0/spaces/club/join', { token: alice.session })).status, 202);
      assert.equal((await server.request('POST', '/v0/spaces/club/join-requests/alice/admit', { token: owner.session })).status, 200);
    });
    after(() => server.stop());

    const post = async (slug: string, body: string, token: string): Promise<number> => {
      const { data, error, response } = await server.as(token).POST('/v0/spaces/{slug}/channels/{channel}/messages', { params: { path: { slug, channel: 'general' } }, body: { body } });
      assert.equal(response.status, 201, JSON.stringify(error));
      return data!.id;
    };
    const dm = async (slug: string, to: string, body: string, token: string): Promise<number> => {
      const { data, error, response } = await server.as(token).POST('/v0/spaces/{slug}/direct-messages', { params: { path: { slug } }, body: { to, body } });
      assert.equal(response.status, 201, JSON.stringify(error));
      return data!.id;
    };
    const inbox = async (token: string, query: { since?: number; limit?: number } = {}): Promise<ContractPage> => {
      const { data, error, response } = await server.as(token).GET('/v0/me/inbox-events', { params: { query } });
      assert.equal(response.status, 200, JSON.stringify(error));
      assert.equal(data?.protocol, 'atrium/0.1-draft');
      return data!;
    };
    const ids = (page: ContractPage) => page.events.map((e) => e.payload.message_id);

    it('holds only direct messages to the caller and mentions of the caller, oldest first', async () => {
      const since = await lastCursor(server);
      const mention = await post('plaza', 'hey @bob', alice.session);
      await post('plaza', 'nobody mentioned here', alice.session);
      await post('plaza', 'hey @carol', alice.session);
      const toBob = await dm('plaza', 'bob', 'a secret for bob', alice.session);
      await dm('plaza', 'alice', 'bob writes to alice', bob.session);
      await post('plaza', 'talking about myself @bob', bob.session);
      const inClub = await post('club', 'in the request Space @bob', alice.session);
      const inVault = await post('vault', 'in the invite Space @bob', alice.session);

      const page = await inbox(bob.session, { since });
      assert.deepEqual(ids(page), [mention, toBob, inClub, inVault]);
      assert.equal(page.cursor, page.events.at(-1)!.cursor);
      const cursors = page.events.map((e) => e.cursor);
      assert.deepEqual(cursors, [...cursors].sort((a, b) => a - b));
      assert.ok(page.events.every((e) => e.type === 'message_posted' && e.subjects.includes('member:mentioned:bob')), 'mentions of bob only');
      const [first, direct] = page.events;
      assert.equal(first!.space, 'plaza');
      assert.equal(first!.actor, 'alice');
      assert.equal(first!.payload.body, 'hey @bob');
      assert.equal(first!.payload.channel, 'general');
      assert.deepEqual(direct!.payload.direct_members, ['alice', 'bob']);
      assert.equal(direct!.payload.body, 'a secret for bob');

      // Carol sees her mention only; alice sees the direct message bob sent her.
      assert.deepEqual(
        (await inbox(carol.session, { since })).events.map((e) => e.payload.body),
        ['hey @carol'],
      );
      assert.deepEqual(
        (await inbox(alice.session, { since })).events.map((e) => e.payload.body),
        ['bob writes to alice'],
      );
    });

    it('includes public Spaces automatically and filters private ones by current read access', async () => {
      const since = await lastCursor(server);
      // Carol never joined plaza or club: both are public, so their mentions reach her.
      const open = await post('plaza', '@carol in the open Space', alice.session);
      const request = await post('club', '@carol in the request Space', alice.session);
      // She is not admitted to vault: mentioned, but not readable, so not in her inbox.
      const hidden = await post('vault', '@carol in the invite Space', alice.session);
      const vaultEvent = await server.app.ctx.db.kysely
        .selectFrom('events')
        .select('subjects')
        .where('cursor', '>', since)
        .where('space', '=', 'vault')
        .executeTakeFirstOrThrow();
      assert.ok(JSON.parse(vaultEvent.subjects).includes('member:mentioned:carol'), 'carol is mentioned in vault');
      assert.deepEqual(ids(await inbox(carol.session, { since })), [open, request]);

      // Admitted later: current access shows it; removed again: it disappears.
      assert.equal((await server.request('POST', '/v0/spaces/vault/invitations', { token: owner.session, body: { member: 'carol' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/vault/join', { token: carol.session })).status, 200);
      assert.deepEqual(ids(await inbox(carol.session, { since })), [open, request, hidden]);
      assert.equal((await server.request('POST', '/v0/spaces/vault/members/carol/remove', { token: owner.session })).status, 200);
      assert.deepEqual(ids(await inbox(carol.session, { since })), [open, request]);

      // A Space-scoped Host reads that invite Space without admission, with their session or their own member key.
      const hugo = await server.human('hugo', { role: 'host', space: 'vault' });
      const forHugo = await post('vault', 'hello @hugo', alice.session);
      const outside = await post('plaza', 'and @hugo here', alice.session);
      assert.deepEqual(ids(await inbox(hugo.session, { since })), [forHugo, outside]);
      const hugoKey = await seedMemberKey(server, 'hugo');
      assert.deepEqual(ids(await inbox(hugoKey, { since })), [forHugo, outside]);
    });

    it("is always the caller's own inbox: an operator's key never reads its agent's", async () => {
      const agent = await seedAgent(server, 'alice-bot', 'alice', 'active');
      const aliceKey = await seedMemberKey(server, 'alice');
      const since = await lastCursor(server);
      const forAgent = await post('plaza', 'ping @alice-bot', bob.session);
      const forAlice = await post('plaza', 'ping @alice', bob.session);
      const agentDm = await dm('plaza', 'alice-bot', 'direct to the agent', bob.session);
      assert.deepEqual(ids(await inbox(agent.key, { since })), [forAgent, agentDm]);
      assert.deepEqual(ids(await inbox(aliceKey, { since })), [forAlice]);
      assert.deepEqual(ids(await inbox(alice.session, { since })), [forAlice]);
      // No parameter names another recipient.
      const other = await server.request('GET', `/v0/me/inbox-events?member=alice-bot`, { token: aliceKey });
      assert.equal(other.status, 422);
    });

    it('keeps `since` on an empty page and follows the feed cursor rules', async () => {
      const head = await inbox(bob.session, { limit: 500 });
      const empty = await inbox(bob.session, { since: head.cursor });
      assert.deepEqual(empty.events, []);
      assert.equal(empty.cursor, head.cursor);
      // Events for others move the head but not bob's page.
      await post('plaza', 'only @carol', alice.session);
      const still = await inbox(bob.session, { since: head.cursor });
      assert.deepEqual(still.events, []);
      assert.equal(still.cursor, head.cursor);
      const none = await inbox(bob.session, { since: 0, limit: 1 });
      assert.equal(none.events.length, 1);
      const rest = await inbox(bob.session, { since: none.cursor, limit: 500 });
      assert.deepEqual([...none.events, ...rest.events].map((e) => e.cursor), head.events.map((e) => e.cursor));

      const beyond = await server.request('GET', '/v0/me/inbox-events?since=999999999', { token: bob.session });
      assertError(beyond, 'cursor_beyond_head');
      for (const query of ['?limit=0', '?limit=501', '?since=-1', '?since=x', '?limit=']) {
        assert.equal((await server.request('GET', `/v0/me/inbox-events${query}`, { token: bob.session })).status, 422, query);
      }
      assert.equal((await server.request('GET', '/v0/me/inbox-events?limit=500', { token: bob.session })).status, 200);
    });

    it('needs an active member credential', async () => {
      const pending = await seedAgent(server, 'pending-bot', 'alice', 'pending');
      const suspended = await server.human('sam');
      await setMemberStatus(server, 'sam', 'suspended');
      assert.equal((await server.request('GET', '/v0/me/inbox-events')).status, 401);
      assert.equal((await server.request('GET', '/v0/me/inbox-events', { token: 'sk_atrium_unknown' })).status, 401);
      assert.equal((await server.request('GET', '/v0/me/inbox-events', { token: pending.key })).status, 403);
      assert.equal((await server.request('GET', '/v0/me/inbox-events', { token: suspended.session })).status, 403);
      assert.equal((await server.request('GET', '/v0/me/inbox-events', { token: STEWARD_KEY })).status, 403);
    });
  });
}
