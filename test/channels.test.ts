import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents, lastCursor } from './support/events.js';
import { rowCounts, seedAgent } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer, type Person } from './support/server.js';
import { assertError } from './support/errors.js';

/** protocol: Channels; every Space gets `general` when approved. */
for (const backend of backends()) {
  describe(`Channels (${backend})`, () => {
    let server: TestServer;
    let alice: Person;
    let bob: Person;
    let owner: Person;

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      bob = await server.human('bob');
      owner = await server.human('olivia', { role: 'owner' });
      for (const [slug, join_policy] of [
        ['plaza', 'open'],
        ['vault', 'invite'],
        ['draft', 'open'],
      ] as const) {
        const res = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug, name: slug, join_policy } });
        assert.equal(res.status, 201);
      }
      for (const slug of ['plaza', 'vault']) {
        assert.equal((await server.request('POST', `/v0/spaces/${slug}/approve`, { token: STEWARD_KEY })).status, 200);
      }
    });
    after(() => server.stop());

    const channelCount = async () =>
      Number(
        (await server.app.ctx.db.kysely.selectFrom('channels').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n,
      );
    const create = (slug: string, body: unknown, token?: string) =>
      server.request('POST', `/v0/spaces/${slug}/channels`, { ...(token ? { token } : {}), body });

    it('gives every approved Space a `general` channel, created in the approval transaction', async () => {
      const proposed = await server.request('GET', '/v0/spaces/draft/channels');
      assert.equal(proposed.status, 200);
      assert.deepEqual(proposed.body.channels, []);

      const since = await lastCursor(server);
      assert.equal((await server.request('POST', '/v0/spaces/draft/approve', { token: owner.session })).status, 200);
      const listed = await server.request('GET', '/v0/spaces/draft/channels');
      assert.equal(listed.status, 200);
      assert.equal(listed.body.protocol, 'atrium/0.1-draft');
      assert.deepEqual(
        listed.body.channels.map((c: { name: string; topic: string; created_by: string | null; space: string }) => [c.space, c.name, c.topic, c.created_by]),
        [['draft', 'general', '', 'olivia']],
      );
      // Part of the approval: `space_approved` records it, and nothing else is emitted.
      const added = await hostEvents(server, since);
      assert.deepEqual(
        added.map((e) => [e.type, e.actor, e.subjects]),
        [['space_approved', 'olivia', ['space:draft']]],
      );
      // Approved with the steward key: no creating member.
      const plaza = await server.request('GET', '/v0/spaces/plaza/channels');
      assert.equal(plaza.body.channels[0].created_by, null);
    });

    it('creates a channel (201) with channel_created, and lists channels by name', async () => {
      const since = await lastCursor(server);
      const res = await create('plaza', { name: 'design-review', topic: 'Weekly *design* review' }, bob.session);
      assert.equal(res.status, 201);
      assert.equal(res.body.space, 'plaza');
      assert.equal(res.body.name, 'design-review');
      assert.equal(res.body.topic, 'Weekly *design* review');
      assert.equal(res.body.created_by, 'bob');
      const noTopic = await create('plaza', { name: 'a' }, alice.session);
      assert.equal(noTopic.status, 201);
      assert.equal(noTopic.body.topic, '');

      const events = await hostEvents(server, since);
      assert.deepEqual(
        events.map((e) => [e.type, e.space, e.actor, e.subjects, e.payload]),
        [
          ['channel_created', 'plaza', 'bob', ['space:plaza', 'channel:design-review'], { name: 'design-review', topic: 'Weekly *design* review' }],
          ['channel_created', 'plaza', 'alice', ['space:plaza', 'channel:a'], { name: 'a', topic: '' }],
        ],
      );
      const listed = await server.request('GET', '/v0/spaces/plaza/channels');
      assert.deepEqual(
        listed.body.channels.map((c: { name: string }) => c.name),
        ['a', 'design-review', 'general'],
      );
      // The Space feed shows the event to anyone who may read the Space.
      const feed = await server.request('GET', `/v0/spaces/plaza/events?since=${since}`);
      assert.deepEqual(
        feed.body.events.map((e: { type: string }) => e.type),
        ['channel_created', 'channel_created'],
      );
    });

    it('refuses duplicates (409) and bad names or topics (422), writing nothing', async () => {
      const before = { ...(await rowCounts(server)), channels: await channelCount() };
      assert.equal((await create('plaza', { name: 'general' }, alice.session)).status, 409);
      assert.equal((await create('plaza', { name: 'design-review', topic: 'again' }, alice.session)).status, 409);
      for (const name of ['', 'General', 'a--b', '-a', 'a-', 'a_b', 'a b', 'x'.repeat(65), 'café']) {
        const res = await create('plaza', { name }, alice.session);
        assertError(res, 'validation_failed', `name ${JSON.stringify(name)}`);
        // The detail names the field at fault.
        assert.match(res.body.detail, /name/);
      }
      assert.equal((await create('plaza', { name: 'x'.repeat(64) }, alice.session)).status, 201);
      assert.equal((await create('plaza', { name: 'long-topic', topic: 't'.repeat(281) }, alice.session)).status, 422);
      assert.equal((await create('plaza', { name: 'nul-topic', topic: 'a\u0000b' }, alice.session)).status, 422);
      const unknown = await create('plaza', { name: 'extra', colour: 'red' }, alice.session);
      assertError(unknown, 'validation_failed');
      assert.match(unknown.body.detail, /unknown field "colour"/);
      assert.equal((await create('plaza', { topic: 'no name' }, alice.session)).status, 422);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/channels', { token: alice.session })).status, 422);
      const after = { ...(await rowCounts(server)), channels: await channelCount() };
      // Only the 64-character channel was created (one row, one event with two subjects).
      assert.deepEqual(after, {
        ...before,
        channels: before.channels + 1,
        events: before.events + 1,
        event_subjects: before.event_subjects + 2,
      });
    });

    it('needs an active member who may act in an active Space', async () => {
      const pending = await seedAgent(server, 'pending-bot', 'alice', 'pending');
      const before = { ...(await rowCounts(server)), channels: await channelCount() };
      assert.equal((await create('plaza', { name: 'anon' })).status, 401);
      assert.equal((await create('plaza', { name: 'pending' }, pending.key)).status, 403);
      assert.equal((await create('plaza', { name: 'steward' }, STEWARD_KEY)).status, 403);
      // An invite Space needs admission.
      assert.equal((await create('vault', { name: 'secret' }, bob.session)).status, 403);
      assert.equal((await create('no-such-space', { name: 'x' }, bob.session)).status, 404);
      const proposed = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'later', name: 'later' } });
      assert.equal(proposed.status, 201);
      const notActive = await create('later', { name: 'early' }, alice.session);
      assertError(notActive, 'space_not_active');
      const after = { ...(await rowCounts(server)), channels: await channelCount() };
      // Only the proposal of `later` was written.
      assert.equal(after.channels, before.channels);
      assert.equal(after.spaces, before.spaces + 1);
      assert.equal(after.events, before.events + 1);
    });

    it('lists channels following read access', async () => {
      assert.equal((await server.request('GET', '/v0/spaces/vault/channels')).status, 401);
      assert.equal((await server.request('GET', '/v0/spaces/vault/channels', { token: bob.session })).status, 403);
      assert.equal((await server.request('GET', '/v0/spaces/no-such-space/channels')).status, 404);
      assert.equal((await server.request('POST', '/v0/spaces/vault/invitations', { token: owner.session, body: { member: 'bob' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/vault/join', { token: bob.session })).status, 200);
      const admitted = await server.request('GET', '/v0/spaces/vault/channels', { token: bob.session });
      assert.equal(admitted.status, 200);
      assert.deepEqual(
        admitted.body.channels.map((c: { name: string }) => c.name),
        ['general'],
      );
      assert.equal((await create('vault', { name: 'secret' }, bob.session)).status, 201);
      assert.equal((await server.request('GET', '/v0/spaces/vault/channels', { token: STEWARD_KEY })).status, 200);
    });

    it('creates one channel when many members race for the same name', async () => {
      const since = await lastCursor(server);
      const people = [alice, bob, owner];
      const results = await Promise.all(
        Array.from({ length: 9 }, (_, i) => create('plaza', { name: 'race', topic: `try ${i}` }, people[i % 3]!.session)),
      );
      assert.deepEqual(
        results.map((r) => r.status).sort(),
        [201, 409, 409, 409, 409, 409, 409, 409, 409],
      );
      const events = (await hostEvents(server, since)).filter((e) => e.type === 'channel_created');
      assert.equal(events.length, 1);
      const winner = results.find((r) => r.status === 201)!;
      assert.equal(events[0]!.payload.topic, winner.body.topic);
    });
  });
}
