import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents, lastCursor, type ContractEvent, type ContractPage } from './support/events.js';
import { rowCounts, seedAgent, seedMemberKey } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type Person, type Schemas, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

type Message = Schemas['Message'];

/** protocol: Messages. Direct messages, readable by their two participants only. */
for (const backend of backends()) {
  describe(`Direct messages (${backend})`, () => {
    let server: TestServer;
    let alice: Person;
    let bob: Person;
    let carol: Person;
    let dave: Person;
    let owner: Person;

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      bob = await server.human('bob');
      carol = await server.human('carol');
      dave = await server.human('dave');
      owner = await server.human('olivia', { role: 'owner' });
      for (const [slug, join_policy] of [
        ['plaza', 'open'],
        ['vault', 'invite'],
      ] as const) {
        await activeSpace(server, alice.session, slug, join_policy);
      }
      assert.equal((await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'draft', name: 'draft' } })).status, 201);
      for (const who of [alice, bob]) {
        assert.equal((await server.request('POST', '/v0/spaces/vault/invitations', { token: owner.session, body: { member: who.handle } })).status, 201);
        assert.equal((await server.request('POST', '/v0/spaces/vault/join', { token: who.session })).status, 200);
      }
    });
    after(() => server.stop());

    const dm = (slug: string, body: unknown, token?: string) =>
      server.request<Message>('POST', `/v0/spaces/${slug}/direct-messages`, { ...(token ? { token } : {}), body });
    const conversation = (slug: string, handle: string, token?: string, query = '') =>
      server.request<Schemas['MessageList']>('GET', `/v0/spaces/${slug}/direct-messages/${handle}${query}`, token ? { token } : {});
    const spaceFeed = async (slug: string, token?: string, since = 0): Promise<ContractPage> => {
      const { data, response } = await (token ? server.as(token) : server.api).GET('/v0/spaces/{slug}/events', { params: { path: { slug }, query: { since, limit: 500 } } });
      assert.equal(response.status, 200);
      return data!;
    };
    const directIds = (events: ContractEvent[]) =>
      events.filter((e) => e.type === 'message_posted' && e.payload.direct_members !== undefined).map((e) => e.payload.message_id);

    it('sends a direct message (201) naming the recipient and both participants', async () => {
      const since = await lastCursor(server);
      const res = await dm('plaza', { to: 'alice', body: 'psst @carol, just between us' }, bob.session);
      assert.equal(res.status, 201);
      const message = res.body;
      assert.deepEqual(Object.keys(message).sort(), [
        'author',
        'body',
        'channel',
        'created_ts',
        'deleted_by',
        'deleted_ts',
        'direct_members',
        'edited_ts',
        'id',
        'last_reply_ts',
        'mentioned_members',
        'reactions',
        'reply_count',
        'space',
        'task',
        'thread_root',
        'version',
      ]);
      assert.equal(message.author, 'bob');
      assert.equal(message.channel, null);
      assert.deepEqual(message.direct_members, ['alice', 'bob']);
      // Only the other participant is notified; a third member named in the body cannot read it.
      assert.deepEqual(message.mentioned_members, ['alice']);

      const events = await hostEvents(server, since);
      assert.deepEqual(events, [], 'the steward key is no participant');
      const stored = await server.app.ctx.db.kysely
        .selectFrom('events')
        .selectAll()
        .where('cursor', '>', since)
        .executeTakeFirstOrThrow();
      assert.equal(stored.type, 'message_posted');
      assert.deepEqual(JSON.parse(stored.subjects), ['space:plaza', `message:${message.id}`, 'member:mentioned:alice']);
      // The body is stored once, in the message; the event names it by `message_id` (docs/events.md).
      assert.deepEqual(JSON.parse(stored.payload), {
        message_id: message.id,
        channel: null,
        task: null,
        thread_root: null,
        author: 'bob',
        mentioned_members: ['alice'],
        direct_members: ['alice', 'bob'],
      });
    });

    it('lets both participants, and only them, read the conversation', async () => {
      const first = await dm('plaza', { to: 'bob', body: 'reply from alice' }, alice.session);
      assert.equal(first.status, 201);
      assert.equal((await dm('plaza', { to: 'carol', body: 'alice to carol' }, alice.session)).status, 201);
      const byAlice = await conversation('plaza', 'bob', alice.session);
      const byBob = await conversation('plaza', 'alice', bob.session);
      assert.equal(byAlice.status, 200);
      assert.deepEqual(
        byAlice.body.messages.map((m: Message) => m.body),
        ['reply from alice', 'psst @carol, just between us'],
      );
      assert.deepEqual(byBob.body, byAlice.body);
      // With an API key too (the same member).
      const bobKey = await seedMemberKey(server, 'bob');
      assert.deepEqual((await conversation('plaza', 'alice', bobKey)).body, byAlice.body);

      // Carol's conversation with alice holds only their own message; with bob, nothing.
      assert.deepEqual(
        (await conversation('plaza', 'alice', carol.session)).body.messages.map((m: Message) => m.body),
        ['alice to carol'],
      );
      assert.deepEqual((await conversation('plaza', 'bob', carol.session)).body.messages, []);
      assert.deepEqual((await conversation('plaza', 'bob', dave.session)).body.messages, []);
      assert.equal((await conversation('plaza', 'bob')).status, 401);
      assert.equal((await conversation('plaza', 'bob', STEWARD_KEY)).status, 403);
      // Not in any channel listing either.
      const general = await server.request('GET', '/v0/spaces/plaza/channels/general/messages?limit=200');
      assert.deepEqual(general.body.messages.filter((m: Message) => m.direct_members !== undefined), [], 'no direct message in a channel');
      // Paging works as for channels.
      const older = await conversation('plaza', 'bob', alice.session, `?limit=1&before=${first.body.id}`);
      assert.deepEqual(
        older.body.messages.map((m: Message) => m.body),
        ['psst @carol, just between us'],
      );
      assert.equal((await conversation('plaza', 'nobody-at-all', alice.session)).status, 404);
      assert.equal((await conversation('plaza', 'alice', alice.session)).status, 422);
      assert.equal((await conversation('no-such-space', 'bob', alice.session)).status, 404);
      assert.equal((await conversation('plaza', 'bob', alice.session, '?limit=201')).status, 422);
    });

    it("lists a member's own direct conversations, the most recently active first, each with its newest message", async () => {
      assert.equal((await dm('plaza', { to: carol.handle, body: 'carol, a question' }, dave.session)).status, 201);
      assert.equal((await dm('plaza', { to: dave.handle, body: 'first to dave' }, bob.session)).status, 201);
      const newest = await dm('plaza', { to: carol.handle, body: 'and a follow-up' }, dave.session);
      assert.equal(newest.status, 201);
      const list = async (token: string, query = '') => server.request('GET', `/v0/spaces/plaza/direct-messages${query}`, { token });

      const daves = await list(dave.session);
      assert.equal(daves.status, 200);
      assert.deepEqual(
        daves.body.conversations.map((c: { with: string; last_message: Message }) => [c.with, c.last_message.body]),
        [
          ['carol', 'and a follow-up'],
          ['bob', 'first to dave'],
        ],
      );
      // Paging by the newest message id of the last conversation shown.
      const first = await list(dave.session, '?limit=1');
      assert.deepEqual(first.body.conversations.map((c: { with: string }) => c.with), ['carol']);
      const next = await list(dave.session, `?limit=1&before=${first.body.conversations[0].last_message.id}`);
      assert.deepEqual(next.body.conversations.map((c: { with: string }) => c.with), ['bob']);
      // Each member sees only their own conversations.
      const carols = await list(carol.session);
      assert.ok(carols.body.conversations.every((c: { last_message: Message }) => c.last_message.direct_members!.includes('carol')));
      assert.ok(!carols.body.conversations.some((c: { with: string }) => c.with === 'bob'));
      assert.equal((await server.request('GET', '/v0/spaces/plaza/direct-messages')).status, 401);
    });

    it('shows direct-message events in the Space feed to the two participants only', async () => {
      const res = await dm('plaza', { to: 'dave', body: 'for dave only' }, carol.session);
      assert.equal(res.status, 201);
      const id = res.body.id;
      const sees = async (token?: string) => directIds((await spaceFeed('plaza', token)).events).includes(id);
      assert.equal(await sees(), false, 'anonymous');
      assert.deepEqual(directIds((await spaceFeed('plaza')).events), [], 'anonymous sees no direct message at all');
      assert.equal(await sees(STEWARD_KEY), false, 'steward key');
      assert.equal(await sees(alice.session), false, 'another member');
      assert.equal(await sees(owner.session), false, 'a host-wide owner');
      assert.equal(await sees(carol.session), true, 'the author');
      assert.equal(await sees(dave.session), true, 'the recipient');
      const owned = await server.request('GET', '/v0/events?limit=500', { token: owner.session });
      assert.equal(directIds(owned.body.events).includes(id), false, 'the host-wide feed');

      // Hiding opens no gap: a non-participant resuming from its cursor sees what follows.
      const seen = await spaceFeed('plaza', alice.session);
      assert.equal((await dm('plaza', { to: 'dave', body: 'again' }, carol.session)).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: bob.session, body: { body: 'public' } })).status, 201);
      const next = await spaceFeed('plaza', alice.session, seen.cursor);
      assert.deepEqual(
        next.events.map((e) => [e.type, e.payload.body]),
        [['message_posted', 'public']],
      );
      const empty = await spaceFeed('plaza', alice.session, next.cursor);
      assert.deepEqual(empty.events, []);
      assert.equal(empty.cursor, next.cursor);
    });

    it('needs both participants able to act in an active Space', async () => {
      const pending = await seedAgent(server, 'pending-bot', 'alice', 'pending');
      const suspended = await server.human('sam');
      await server.app.ctx.db.kysely.updateTable('members').set({ status: 'suspended' }).where('handle', '=', 'sam').execute();
      const count = async () =>
        Number((await server.app.ctx.db.kysely.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const before = { ...(await rowCounts(server)), messages: await count() };

      assert.equal((await dm('plaza', { to: 'bob', body: 'hi' })).status, 401);
      assert.equal((await dm('plaza', { to: 'bob', body: 'hi' }, pending.key)).status, 403);
      assert.equal((await dm('plaza', { to: 'bob', body: 'hi' }, STEWARD_KEY)).status, 403);
      assert.equal((await dm('plaza', { to: 'bob', body: 'hi' }, suspended.session)).status, 403);
      // Recipients who cannot act in the Space.
      for (const to of ['pending-bot', 'sam']) {
        assertError(await dm('plaza', { to, body: 'hi' }, alice.session), 'recipient_not_admitted', to);
      }
      assert.equal((await dm('vault', { to: 'carol', body: 'hi' }, alice.session)).status, 403);
      assert.equal((await dm('vault', { to: 'alice', body: 'hi' }, carol.session)).status, 403);
      // Input errors.
      const self = await dm('plaza', { to: 'alice', body: 'hi' }, alice.session);
      assertError(self, 'validation_failed');
      const unknown = await dm('plaza', { to: 'nobody-at-all', body: 'hi' }, alice.session);
      assertError(unknown, 'unknown_reference');
      assert.equal((await dm('plaza', { to: 'Not A Handle', body: 'hi' }, alice.session)).status, 422);
      assert.equal((await dm('plaza', { to: 'bob', body: '' }, alice.session)).status, 422);
      assert.equal((await dm('plaza', { to: 'bob', body: 'b'.repeat(20001) }, alice.session)).status, 422);
      assert.equal((await dm('plaza', { to: 'bob' }, alice.session)).status, 422);
      assert.equal((await dm('plaza', { to: 'bob', body: 'hi', cc: 'carol' }, alice.session)).status, 422);
      assert.equal((await dm('no-such-space', { to: 'bob', body: 'hi' }, alice.session)).status, 404);
      assert.equal((await dm('draft', { to: 'bob', body: 'hi' }, alice.session)).status, 409);
      assert.deepEqual({ ...(await rowCounts(server)), messages: await count() }, before);

      // A removed member can neither send nor receive there.
      assert.equal((await server.request('POST', '/v0/spaces/vault/members/bob/remove', { token: owner.session })).status, 200);
      assert.equal((await dm('vault', { to: 'bob', body: 'hi' }, alice.session)).status, 403);
      assert.equal((await dm('vault', { to: 'alice', body: 'hi' }, bob.session)).status, 403);
      // …and loses the private Space's conversations with it.
      assert.equal((await conversation('vault', 'alice', bob.session)).status, 403);
    });

    it('works between admitted members of an invite Space', async () => {
      assert.equal((await server.request('POST', '/v0/spaces/vault/invitations', { token: owner.session, body: { member: 'dave' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/vault/join', { token: dave.session })).status, 200);
      const res = await dm('vault', { to: 'dave', body: 'welcome' }, alice.session);
      assert.equal(res.status, 201);
      assert.deepEqual(res.body.direct_members, ['alice', 'dave']);
      assert.equal(directIds((await spaceFeed('vault', dave.session)).events).includes(res.body.id), true, 'the recipient');
      assert.equal(directIds((await spaceFeed('vault', owner.session)).events).includes(res.body.id), false, 'the owner');
    });
  });
}
