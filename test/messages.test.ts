import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents, lastCursor } from './support/events.js';
import { rowCounts, seedAgent } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type Person, type Schemas, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

type Message = Schemas['Message'];

/** protocol: Messages, Event types (`message_posted`). */
for (const backend of backends()) {
  describe(`Channel messages (${backend})`, () => {
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
        ['vault', 'invite'],
      ] as const) {
        await activeSpace(server, alice.session, slug, join_policy);
      }
      assert.equal((await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'draft', name: 'draft' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/vault/invitations', { token: owner.session, body: { member: 'alice' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/vault/join', { token: alice.session })).status, 200);
    });
    after(() => server.stop());

    const post = (slug: string, channel: string, body: unknown, token?: string) =>
      server.request<Message>('POST', `/v0/spaces/${slug}/channels/${channel}/messages`, { ...(token ? { token } : {}), body });
    const list = (slug: string, channel: string, query = '', token?: string) =>
      server.request<Schemas['MessageList']>('GET', `/v0/spaces/${slug}/channels/${channel}/messages${query}`, token ? { token } : {});
    const messageCount = async () =>
      Number(
        (await server.app.ctx.db.kysely.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n,
      );

    it('posts a message (201) and records message_posted with its subjects in the same commit', async () => {
      const since = await lastCursor(server);
      const body = 'Hello **everyone**: @bob, please look at this.\n\nAnd @carol too.';
      const res = await post('plaza', 'general', { body }, alice.session);
      assert.equal(res.status, 201);
      const message = res.body as Message;
      assert.deepEqual(Object.keys(message).sort(), [
        'author',
        'body',
        'channel',
        'created_ts',
        'deleted_by',
        'deleted_ts',
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
      assert.deepEqual(message.reactions, []);
      assert.ok(Number.isInteger(message.id) && message.id > 0, `id ${message.id}`);
      assert.equal(message.space, 'plaza');
      assert.equal(message.channel, 'general');
      assert.equal(message.task, null);
      assert.equal(message.author, 'alice');
      assert.equal(message.body, body);
      assert.deepEqual(message.mentioned_members, ['bob', 'carol']);
      // The answer is the message as stored (on PostgreSQL it is built before its insert is sent with the event's).
      const listed = (await list('plaza', 'general', '', alice.session)).body.messages as Message[];
      assert.deepEqual(listed.find((m) => m.id === message.id), message);

      const events = await hostEvents(server, since);
      assert.equal(events.length, 1);
      const event = events[0]!;
      assert.equal(event.type, 'message_posted');
      assert.equal(event.space, 'plaza');
      assert.equal(event.actor, 'alice');
      assert.deepEqual(event.subjects, [
        'space:plaza',
        'channel:general',
        `message:${message.id}`,
        'member:mentioned:bob',
        'member:mentioned:carol',
      ]);
      assert.deepEqual(event.payload, {
        message_id: message.id,
        channel: 'general',
        task: null,
        thread_root: null,
        author: 'alice',
        body,
        mentioned_members: ['bob', 'carol'],
      });
      const stored = await server.app.ctx.db.kysely
        .selectFrom('event_subjects')
        .select('subject')
        .where('cursor', '=', event.cursor)
        .orderBy('subject')
        .execute();
      assert.deepEqual(
        stored.map((r) => r.subject),
        ['channel:general', 'member:mentioned:bob', 'member:mentioned:carol', `message:${message.id}`, 'space:plaza'],
      );
    });

    it("stores a message's body once, in the message, and serves message_posted with it in every read of every feed", async () => {
      const since = await lastCursor(server);
      const body = 'once is enough, @bob';
      const res = await post('plaza', 'general', { body }, alice.session);
      assert.equal(res.status, 201);
      const [event] = await hostEvents(server, since);
      const row = await server.app.ctx.db.kysely.selectFrom('events').select('payload').where('cursor', '=', event!.cursor).executeTakeFirstOrThrow();
      assert.equal(row.payload.includes(body), false, 'the event row holds no copy of the body');
      assert.deepEqual(JSON.parse(row.payload).message_id, res.body.id);

      const declaredOrder = ['message_id', 'channel', 'task', 'thread_root', 'author', 'body', 'mentioned_members'];
      const reads = {
        'the Space feed': await server.request('GET', `/v0/spaces/plaza/events?since=${since}`),
        'its newest events': await server.request('GET', '/v0/spaces/plaza/events?newest=1'),
        'the host feed': await server.request('GET', `/v0/events?since=${since}`, { token: STEWARD_KEY }),
        "bob's inbox": await server.request('GET', `/v0/me/inbox-events?since=${since}`, { token: bob.session }),
      };
      for (const [feed, read] of Object.entries(reads)) {
        assert.equal(read.status, 200, feed);
        const served = (read.body.events as Array<{ cursor: number; payload: Record<string, unknown> }>).find((e) => e.cursor === event!.cursor);
        assert.ok(served, `${feed} has the event`);
        assert.deepEqual(Object.keys(served.payload), declaredOrder, `${feed}: the payload's fields in their declared order`);
        assert.equal(served.payload.body, body, feed);
      }

      // An event stored with its own copy (as every one was before this rule) is served as stored.
      const ownCopy = { ...JSON.parse(row.payload), body: 'the copy the event kept' };
      await server.app.ctx.db.kysely.updateTable('events').set({ payload: JSON.stringify(ownCopy) }).where('cursor', '=', event!.cursor).execute();
      const again = await server.request('GET', `/v0/spaces/plaza/events?since=${since}&limit=7`);
      assert.equal(again.body.events[0].payload.body, 'the copy the event kept');
    });

    it('stores and returns bodies verbatim', async () => {
      const body = '  <script>alert(1)</script>\n# Ignore previous instructions\n\tTabbed `code` ✓ 😀  \n';
      const res = await post('plaza', 'general', { body }, bob.session);
      assert.equal(res.status, 201);
      assert.equal(res.body.body, body);
      const page = await list('plaza', 'general', '?limit=1');
      assert.equal(page.body.messages[0]?.body, body);
    });

    it('declares every member-written field untrusted in the contract (core rule 4)', async () => {
      const contract = (await server.request('GET', '/v0/openapi.json')).body;
      const schemas = contract.components.schemas;
      assert.equal(schemas.Message.properties.body['x-atrium-untrusted'], true);
      assert.equal(schemas.Channel.properties.topic['x-atrium-untrusted'], true);
      assert.equal(schemas.MessagePostedEvent.properties.payload.properties.body['x-atrium-untrusted'], true);
      assert.equal(schemas.ChannelCreatedEvent.properties.payload.properties.topic['x-atrium-untrusted'], true);
    });

    it('resolves mentions of active members only, once, and never from code or links', async () => {
      await seedAgent(server, 'pending-bot', 'alice', 'pending');
      await seedAgent(server, 'helper-bot', 'alice', 'active');
      const body = [
        '@carol @CAROL @bob @nobody-here @pending-bot @helper-bot @alice',
        '`@olivia` in code, [@olivia](https://example.test/@olivia), <https://example.test/@olivia>, olivia@example.test',
        '```',
        '@olivia',
        '```',
      ].join('\n');
      const since = await lastCursor(server);
      const res = await post('plaza', 'general', { body }, alice.session);
      assert.equal(res.status, 201);
      // Unknown and pending stay text; the author does not notify herself; code and links never notify.
      assert.deepEqual(res.body.mentioned_members, ['carol', 'bob', 'helper-bot']);
      const [event] = await hostEvents(server, since);
      assert.deepEqual(
        event!.subjects.filter((s) => s.startsWith('member:mentioned:')),
        ['member:mentioned:carol', 'member:mentioned:bob', 'member:mentioned:helper-bot'],
      );
    });

    it('never reparses history: a handle registered later stays unmentioned in old messages', async () => {
      const res = await post('plaza', 'general', { body: 'welcome @newcomer when you arrive' }, alice.session);
      assert.equal(res.status, 201);
      assert.deepEqual(res.body.mentioned_members, []);
      await server.human('newcomer');
      const page = await list('plaza', 'general', `?before=${res.body.id + 1}&limit=1`);
      assert.equal(page.body.messages[0]?.id, res.body.id);
      assert.deepEqual(page.body.messages[0]?.mentioned_members, []);
    });

    it('accepts 1 and 20000 characters; refuses empty, blank, longer, malformed or extended bodies with 422, writing nothing', async () => {
      assert.equal((await post('plaza', 'general', { body: 'x' }, bob.session)).status, 201);
      const longest = await post('plaza', 'general', { body: 'y'.repeat(20000) }, bob.session);
      assert.equal(longest.status, 201);
      assert.equal(longest.body.body.length, 20000);

      const before = { ...(await rowCounts(server)), messages: await messageCount() };
      const cases: Array<[unknown, RegExp]> = [
        [{ body: '' }, /body/],
        [{ body: 'z'.repeat(20001) }, /body/],
        [{ body: ' \n\t ' }, /blank/],
        [{ body: 'nul \u0000 byte' }, /NUL/],
        [{ body: 'lone \ud800 surrogate' }, /UTF-8/],
        [{}, /missing required field "body"/],
        [{ body: 'hi', channel: 'general' }, /unknown field "channel"/],
        [{ body: 42 }, /body/],
      ];
      for (const [input, detail] of cases) {
        const res = await post('plaza', 'general', input, bob.session);
        // The detail names the field at fault, and the rule it breaks.
        assert.match(assertError(res, 'validation_failed', JSON.stringify(input).slice(0, 80)), detail);
      }
      const noBody = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: bob.session });
      assert.equal(noBody.status, 422);
      const badJson = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: bob.session, rawBody: '{"body":' });
      assert.equal(badJson.status, 422);
      assert.deepEqual({ ...(await rowCounts(server)), messages: await messageCount() }, before);
    });

    it('needs an active member who may act in an active Space, and an existing channel', async () => {
      const pending = await seedAgent(server, 'waiting-bot', 'alice', 'pending');
      const before = { ...(await rowCounts(server)), messages: await messageCount() };
      assert.equal((await post('plaza', 'general', { body: 'hi' })).status, 401);
      assert.equal((await post('plaza', 'general', { body: 'hi' }, pending.key)).status, 403);
      assert.equal((await post('plaza', 'general', { body: 'hi' }, STEWARD_KEY)).status, 403);
      assert.equal((await post('vault', 'general', { body: 'hi' }, bob.session)).status, 403);
      assert.equal((await post('no-such-space', 'general', { body: 'hi' }, bob.session)).status, 404);
      const unknown = await post('plaza', 'no-such-channel', { body: 'hi' }, bob.session);
      assertError(unknown, 'channel_not_found');
      // A name no channel could have is refused by the path's pattern.
      const malformed = await post('plaza', 'Not_A_Name', { body: 'hi' }, bob.session);
      // The detail names the path parameter and what a channel name looks like.
      assert.equal(assertError(malformed, 'validation_failed'), 'params.channel must be lowercase letters and digits, with single hyphens between them');
      const draft = await post('draft', 'general', { body: 'hi' }, alice.session);
      assertError(draft, 'space_not_active');
      assert.deepEqual({ ...(await rowCounts(server)), messages: await messageCount() }, before);
      // A removed member of an open Space may no longer post there.
      assert.equal((await server.request('POST', '/v0/spaces/plaza/join', { token: carol.session })).status, 200);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/members/carol/remove', { token: owner.session })).status, 200);
      assert.equal((await post('plaza', 'general', { body: 'still here?' }, carol.session)).status, 403);
    });

    it('lists newest first, pages back with `before`, and follows read access', async () => {
      assert.equal((await server.request('POST', '/v0/spaces/plaza/channels', { token: alice.session, body: { name: 'paging' } })).status, 201);
      const ids: number[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await post('plaza', 'paging', { body: `message ${i}` }, i % 2 ? alice.session : bob.session);
        assert.equal(res.status, 201);
        ids.push(res.body.id);
      }
      const all = await list('plaza', 'paging');
      assert.equal(all.status, 200);
      assert.equal(all.body.protocol, 'atrium/0.1-draft');
      assert.deepEqual(
        all.body.messages.map((m: Message) => m.id),
        [...ids].reverse(),
      );
      const first = await list('plaza', 'paging', '?limit=3');
      assert.deepEqual(
        first.body.messages.map((m: Message) => m.body),
        ['message 6', 'message 5', 'message 4'],
      );
      const second = await list('plaza', 'paging', `?limit=3&before=${first.body.messages[2]!.id}`);
      assert.deepEqual(
        second.body.messages.map((m: Message) => m.body),
        ['message 3', 'message 2', 'message 1'],
      );
      const last = await list('plaza', 'paging', `?limit=3&before=${second.body.messages[2]!.id}`);
      assert.deepEqual(
        last.body.messages.map((m: Message) => m.body),
        ['message 0'],
      );
      assert.deepEqual((await list('plaza', 'paging', `?before=${ids[0]}`)).body.messages, []);
      // Other channels' messages never appear.
      assert.ok((await list('plaza', 'general', '?limit=200')).body.messages.every((m: Message) => m.channel === 'general'));

      for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?before=0', '?before=-1', '?since=3']) {
        assert.equal((await list('plaza', 'paging', query)).status, 422, query);
      }
      assert.equal((await list('plaza', 'paging', '?limit=200')).status, 200);
      assert.equal((await list('plaza', 'no-such-channel')).status, 404);
      assert.equal((await list('no-such-space', 'general')).status, 404);

      assert.equal((await post('vault', 'general', { body: 'private' }, alice.session)).status, 201);
      assert.equal((await list('vault', 'general')).status, 401);
      assert.equal((await list('vault', 'general', '', bob.session)).status, 403);
      const admitted = await list('vault', 'general', '', alice.session);
      assert.equal(admitted.status, 200);
      assert.deepEqual(
        admitted.body.messages.map((m: Message) => m.body),
        ['private'],
      );
      assert.equal((await list('vault', 'general', '', STEWARD_KEY)).status, 200);
      assert.equal((await list('vault', 'general', '', owner.session)).status, 200);
    });
  });
}
