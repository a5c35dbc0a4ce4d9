import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents, lastCursor, type FeedEvent } from './support/events.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type Person, type Schemas, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

type Message = Schemas['Message'];

/** Edits (docs/messages.md, "Edits"). */
for (const backend of backends()) {
  describe(`Message edits (${backend})`, () => {
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
      await activeSpace(server, owner.session, 'plaza');
      await activeSpace(server, owner.session, 'quiet');
    });
    after(() => server.stop());

    const post = async (who: Person, body: string, slug = 'plaza'): Promise<Message> => {
      const { data, error, response } = await server.as(who.session).POST('/v0/spaces/{slug}/channels/{channel}/messages', { params: { path: { slug, channel: 'general' } }, body: { body } });
      assert.equal(response.status, 201, JSON.stringify(error));
      return data!;
    };
    const edit = (who: Person | undefined, id: number, body: string, expected_version: number, slug = 'plaza') =>
      server.request('PATCH', `/v0/spaces/${slug}/messages/${id}`, { ...(who ? { token: who.session } : {}), body: { body, expected_version } });
    const versions = (id: number, token?: string) => server.request('GET', `/v0/spaces/plaza/messages/${id}/versions`, token ? { token } : {});
    const inbox = async (who: Person, since: number): Promise<FeedEvent[]> => {
      const res = await server.request('GET', `/v0/me/inbox-events?since=${since}`, { token: who.session });
      assert.equal(res.status, 200);
      return res.body.events as FeedEvent[];
    };
    const payloadOf = (events: FeedEvent[], cursor: number) => events.find((e) => e.cursor === cursor)?.payload;

    it('gives the message a new version and keeps the earlier bodies readable, in its versions and in its events', async () => {
      const since = await lastCursor(server);
      const posted = await post(alice, 'first words');
      assert.equal(posted.version, 1);
      assert.equal(posted.edited_ts, null);

      const res = await edit(alice, posted.id, 'second words', 1);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.version, 2);
      assert.equal(res.body.body, 'second words');
      assert.equal(res.body.created_ts, posted.created_ts);
      assert.ok(typeof res.body.edited_ts === 'string' && res.body.edited_ts >= posted.created_ts);
      assert.equal((await edit(alice, posted.id, 'third words', 2)).status, 200);

      const listed = (await server.request('GET', '/v0/spaces/plaza/channels/general/messages?limit=1')).body.messages[0] as Message;
      assert.deepEqual([listed.id, listed.body, listed.version], [posted.id, 'third words', 3]);
      const history = await versions(posted.id);
      assert.equal(history.status, 200);
      assert.equal(history.body.message_id, posted.id);
      assert.deepEqual(
        (history.body.versions as Array<{ version: number; body: string }>).map((v) => [v.version, v.body]),
        [
          [1, 'first words'],
          [2, 'second words'],
          [3, 'third words'],
        ],
      );
      assert.equal(history.body.versions[0].created_ts, posted.created_ts);

      // Each event shows the body as it was when emitted, in every feed, though no row holds a copy.
      const events = (await hostEvents(server, since)).filter((e) => e.payload.message_id === posted.id);
      assert.deepEqual(
        events.map((e) => [e.type, e.payload.version ?? 1, e.payload.body]),
        [
          ['message_posted', 1, 'first words'],
          ['message_edited', 2, 'second words'],
          ['message_edited', 3, 'third words'],
        ],
      );
      assert.deepEqual(events[1]!.subjects, ['space:plaza', 'channel:general', `message:${posted.id}`]);
      assert.deepEqual(Object.keys(events[1]!.payload), ['message_id', 'channel', 'task', 'thread_root', 'author', 'body', 'version', 'mentioned_members']);
      const spaceFeed = (await server.request('GET', `/v0/spaces/plaza/events?since=${since}`)).body.events as FeedEvent[];
      assert.deepEqual(
        spaceFeed.filter((e) => e.payload.message_id === posted.id).map((e) => e.payload.body),
        ['first words', 'second words', 'third words'],
      );
      const rows = await server.app.ctx.db.kysely.selectFrom('events').select('payload').where('cursor', 'in', events.map((e) => e.cursor)).execute();
      for (const row of rows) assert.ok(!row.payload.includes('words'), `no event row keeps a body: ${row.payload}`);
    });

    it('keeps a kept feed page true after an edit', async () => {
      const since = await lastCursor(server);
      const posted = await post(alice, 'as first posted');
      // A full page is kept by the node for good: it must still be what the log says after the edit.
      const page = `/v0/spaces/plaza/events?since=${since}&limit=1`;
      const first = await server.request('GET', page);
      assert.equal(first.body.events[0].payload.body, 'as first posted');
      assert.equal((await edit(alice, posted.id, 'as edited', 1)).status, 200);
      const again = await server.request('GET', page);
      assert.deepEqual(again.body, first.body);
      const fresh = await server.request('GET', `/v0/spaces/plaza/events?since=${since}&limit=2`);
      assert.deepEqual(fresh.body.events[0], first.body.events[0], 'a fresh read of the log says the same');
      assert.equal(fresh.body.events[1].payload.body, 'as edited');
    });

    it('refuses a stale expected_version (409), another member (403) and a message the caller cannot see (404), writing nothing', async () => {
      const posted = await post(alice, 'mine');
      assert.equal((await edit(alice, posted.id, 'mine, edited', 1)).status, 200);
      const before = await lastCursor(server);
      assertError(await edit(alice, posted.id, 'from a stale copy', 1), 'message_version_conflict');
      assertError(await edit(alice, posted.id, 'from the future', 3), 'message_version_conflict');
      assertError(await edit(bob, posted.id, 'not yours', 2), 'not_message_author');
      assertError(await edit(owner, posted.id, 'not even an Owner', 2), 'not_message_author');
      assertError(await edit(undefined, posted.id, 'anonymous', 2), 'credential_required');
      assertError(await edit(alice, 999_999_999, 'nothing', 1), 'message_not_found');
      assertError(await edit(alice, posted.id, 'wrong Space', 2, 'quiet'), 'message_not_found');
      assertError(await edit(alice, posted.id, '   ', 2), 'validation_failed');
      assertError(await edit(alice, posted.id, '', 2), 'validation_failed');
      const dm = await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: alice.session, body: { to: 'bob', body: 'between us' } });
      const afterDm = await lastCursor(server);
      assertError(await edit(carol, dm.body.id, 'not a participant', 1), 'message_not_found');
      assertError(await versions(dm.body.id, carol.session), 'message_not_found');
      assert.equal((await versions(dm.body.id, bob.session)).status, 200);
      assert.ok(afterDm > before);

      const row = await server.app.ctx.db.kysely.selectFrom('messages').selectAll().where('id', '=', posted.id).executeTakeFirstOrThrow();
      assert.deepEqual([row.body, Number(row.version)], ['mine, edited', 2]);
      assert.equal(await lastCursor(server), afterDm, 'no event was written');
    });

    it('lets only one of two edits of the same version through', async () => {
      const posted = await post(alice, 'contested');
      const answers = await Promise.all([edit(alice, posted.id, 'one', 1), edit(alice, posted.id, 'two', 1)]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409]);
      const history = (await versions(posted.id)).body.versions as Array<{ body: string }>;
      assert.deepEqual(history.map((v) => v.body), ['contested', answers.find((a) => a.status === 200)!.body.body]);
    });

    it('edits only while the author may still post there', async () => {
      assert.equal((await server.request('POST', '/v0/spaces/quiet/join', { token: carol.session })).status, 200);
      const posted = await post(carol, 'before removal', 'quiet');
      assert.equal((await server.request('POST', '/v0/spaces/quiet/members/carol/remove', { token: owner.session })).status, 200);
      assertError(await edit(carol, posted.id, 'after removal', 1, 'quiet'), 'not_admitted');
      const dm = await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: alice.session, body: { to: 'carol', body: 'hello' } });
      assert.equal(dm.status, 201);
      assert.equal((await server.request('POST', '/v0/members/carol/suspend', { token: STEWARD_KEY })).status, 200);
      assertError(await edit(alice, dm.body.id, 'hello again', 1), 'recipient_not_admitted');
      assert.equal((await server.request('POST', '/v0/members/carol/reinstate', { token: STEWARD_KEY })).status, 200);
      assert.equal((await edit(alice, dm.body.id, 'hello again', 1)).status, 200);
    });

    it('notifies exactly the members an edit newly mentions, and un-notifies nobody', async () => {
      const posted = await post(alice, 'hello @bob');
      const beforeEdit = await lastCursor(server);
      const added = await edit(alice, posted.id, 'hello @bob and @carol', 1);
      assert.deepEqual(added.body.mentioned_members, ['bob', 'carol']);
      const carolsInbox = await inbox(carol, beforeEdit);
      assert.deepEqual(carolsInbox.map((e) => [e.type, e.payload.message_id, e.payload.body]), [['message_edited', posted.id, 'hello @bob and @carol']]);
      assert.deepEqual(await inbox(bob, beforeEdit), [], 'bob was notified when first mentioned, not again');
      const [event] = (await hostEvents(server, beforeEdit)).filter((e) => e.type === 'message_edited');
      assert.deepEqual(event!.subjects.filter((s) => s.startsWith('member:mentioned:')), ['member:mentioned:carol']);

      // Dropping a mention takes no notification back; mentioning again notifies no one anew.
      const dropped = await edit(alice, posted.id, 'hello all', 2);
      assert.deepEqual(dropped.body.mentioned_members, []);
      const bobsInbox = await inbox(bob, 0);
      assert.equal(payloadOf(bobsInbox, bobsInbox.find((e) => e.payload.message_id === posted.id)!.cursor)!.body, 'hello @bob', 'the entry still shows what it said');
      const again = await lastCursor(server);
      assert.equal((await edit(alice, posted.id, 'hello @bob, @carol', 3)).status, 200);
      assert.deepEqual(await inbox(bob, again), []);
      assert.deepEqual(await inbox(carol, again), []);
    });

    it('re-indexes the message for search, with the edit as the event that made its text current', async () => {
      const posted = await post(alice, 'zucchiniword first');
      const edited = await edit(alice, posted.id, 'aubergineword second', 1);
      assert.equal(edited.status, 200);
      const search = (q: string) => server.request('GET', `/v0/search?q=${q}&space=plaza`);
      assert.deepEqual((await search('zucchiniword')).body.results, []);
      const found = (await search('aubergineword')).body.results as Array<{ id: number; event_cursor: number }>;
      assert.deepEqual(found.map((r) => r.id), [posted.id]);
      const [editedEvent] = (await hostEvents(server, 0)).filter((e) => e.type === 'message_edited' && e.payload.message_id === posted.id);
      assert.equal(found[0]!.event_cursor, editedEvent!.cursor);
    });
  });
}
