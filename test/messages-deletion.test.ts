import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents, lastCursor, type FeedEvent } from './support/events.js';
import { McpCaller, unwrapUntrusted } from './support/mcp.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

type Person = { handle: string; session: string };

interface Message {
  id: number;
  body: string;
  mentioned_members: string[];
  thread_root: number | null;
  reply_count?: number;
  version: number;
  deleted_ts: string | null;
  deleted_by: string | null;
}

/** Deletion (docs/messages.md, "Deletion"). */
for (const backend of backends()) {
  describe(`Message deletion (${backend})`, () => {
    let server: TestServer;
    /** A second node on the same database (PostgreSQL), or the one node (SQLite). */
    let other: TestServer;
    let alice: Person;
    let bob: Person;
    let carol: Person;
    let owner: Person;
    let marker = 0;

    before(async () => {
      server = await startServer(backend);
      other = backend === 'postgres' ? await startServer(backend, { shareWith: server }) : server;
      alice = await server.human('alice');
      bob = await server.human('bob');
      carol = await server.human('carol');
      owner = await server.human('olivia', { role: 'owner' });
      await activeSpace(server, owner.session, 'plaza');
    });
    after(async () => {
      if (other !== server) await other.stop();
      await server.stop();
    });

    /** A body with a word no other message holds, to look for afterwards. */
    const secret = () => `zqsecret${++marker}`;
    const post = async (who: Person, body: string, thread_root?: number): Promise<Message> => {
      const res = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', {
        token: who.session,
        body: { body, ...(thread_root === undefined ? {} : { thread_root }) },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body as Message;
    };
    const remove = (who: Person | undefined, id: number, on: TestServer = server) =>
      on.request('DELETE', `/v0/spaces/plaza/messages/${id}`, who ? { token: who.session } : {});
    const db = () => server.app.ctx.db.kysely;
    /** Every stored row that could hold message text, as text, to search for a word in. */
    const rawRows = async (id: number): Promise<string> =>
      JSON.stringify([
        await db().selectFrom('messages').selectAll().where('id', '=', id).execute(),
        await db().selectFrom('message_versions').selectAll().where('message_id', '=', id).execute(),
        await db().selectFrom('events').selectAll().execute(),
        await db().selectFrom('pending_events').selectAll().execute(),
      ]);

    it('leaves a tombstone in its place and thread, and takes its body out of the message, its versions, its events, search, the inbox and MCP', async () => {
      const word = secret();
      const since = await lastCursor(server);
      const root = await post(alice, `first ${word} for @bob`);
      const edited = await server.request('PATCH', `/v0/spaces/plaza/messages/${root.id}`, {
        token: alice.session,
        body: { body: `second ${word} for @bob and @carol`, expected_version: 1 },
      });
      assert.equal(edited.status, 200);
      const reply = await post(bob, 'a reply that stays', root.id);
      assert.ok((await rawRows(root.id)).includes(word), 'the word is stored before the deletion');

      const res = await remove(alice, root.id);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const tombstone = res.body as Message;
      assert.equal(tombstone.id, root.id);
      assert.equal(tombstone.body, '');
      assert.deepEqual(tombstone.mentioned_members, []);
      assert.equal(tombstone.deleted_by, 'alice');
      assert.ok(typeof tombstone.deleted_ts === 'string');
      assert.equal(tombstone.reply_count, 1);

      // The tombstone keeps its place in the conversation and in its thread.
      const listed = (await server.request('GET', '/v0/spaces/plaza/channels/general/messages')).body.messages as Message[];
      assert.deepEqual(listed.find((m) => m.id === root.id), tombstone);
      const thread = await server.request('GET', `/v0/spaces/plaza/messages/${reply.id}/thread`);
      assert.deepEqual(thread.body.root, tombstone);
      assert.deepEqual((thread.body.replies as Message[]).map((m) => m.body), ['a reply that stays']);
      assert.deepEqual((await server.request('GET', `/v0/spaces/plaza/messages/${root.id}/versions`)).body.versions, []);

      // Its events stay, envelopes whole, bodies gone, in every feed.
      const events = (await hostEvents(server, since)).filter((e) => e.payload.message_id === root.id);
      assert.deepEqual(
        events.map((e) => e.type),
        ['message_posted', 'message_edited', 'message_deleted'],
      );
      for (const event of events) assert.equal('body' in event.payload, false, `${event.type} has no body`);
      assert.deepEqual(events[0]!.subjects, ['space:plaza', 'channel:general', `message:${root.id}`, 'member:mentioned:bob']);
      assert.deepEqual(events[2]!.subjects, ['space:plaza', 'channel:general', `message:${root.id}`]);
      assert.deepEqual(events[2]!.payload, { message_id: root.id, channel: 'general', task: null, thread_root: null, author: 'alice', deleted_by: 'alice' });
      const feeds: Record<string, FeedEvent[]> = {
        'the Space feed': (await server.request('GET', `/v0/spaces/plaza/events?since=${since}`)).body.events,
        "bob's inbox": (await server.request('GET', `/v0/me/inbox-events?since=${since}`, { token: bob.session })).body.events,
        "carol's inbox": (await server.request('GET', `/v0/me/inbox-events?since=${since}`, { token: carol.session })).body.events,
      };
      for (const [feed, read] of Object.entries(feeds)) {
        const about = read.filter((e) => e.payload.message_id === root.id);
        assert.ok(about.length > 0, `${feed} still has the message's events`);
        assert.ok(!JSON.stringify(about).includes(word), `${feed} shows no body`);
      }
      assert.ok(!(await rawRows(root.id)).includes(word), 'no stored row holds the word');

      const search = await server.request('GET', `/v0/search?q=${word}`);
      assert.deepEqual(search.body.results, []);
      assert.equal(await db().selectFrom('search_documents').select('id').where('record_key', '=', `message:${root.id}`).executeTakeFirst(), undefined);

      const mcp = await McpCaller.connect(server, bob.session);
      try {
        const read = unwrapUntrusted((await mcp.ok('read_thread', { slug: 'plaza', id: root.id })).json) as { root: Message };
        assert.equal(read.root.body, '');
        const inbox = JSON.stringify((await mcp.ok('list_inbox_events', { since })).json);
        assert.ok(inbox.includes(`"message_id":${root.id}`) && !inbox.includes(word), 'the inbox entry stays, without its body');
        const listing = JSON.stringify((await mcp.ok('list_messages', { slug: 'plaza', channel: 'general' })).json);
        assert.ok(!listing.includes(word));
      } finally {
        await mcp.close();
      }
    });

    it('redacts the copy of the body an older event row kept', async () => {
      const word = secret();
      const since = await lastCursor(server);
      const message = await post(alice, `kept ${word}`);
      const [event] = await hostEvents(server, since);
      // Events written before bodies were stored by reference hold their own copy.
      const row = await db().selectFrom('events').select('payload').where('cursor', '=', event!.cursor).executeTakeFirstOrThrow();
      await db()
        .updateTable('events')
        .set({ payload: JSON.stringify({ ...JSON.parse(row.payload), body: `kept ${word}` }) })
        .where('cursor', '=', event!.cursor)
        .execute();
      assert.ok((await rawRows(message.id)).includes(word));
      assert.equal((await remove(alice, message.id)).status, 200);
      const redacted = await db().selectFrom('events').select('payload').where('cursor', '=', event!.cursor).executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(redacted.payload), { message_id: message.id, channel: 'general', task: null, thread_root: null, author: 'alice', mentioned_members: [] });
      assert.ok(!(await rawRows(message.id)).includes(word));
    });

    it('lets the steward key delete as an Owner/Host does: the tombstone names nobody, the event says via steward_key', async () => {
      const said = await post(alice, 'stewarded away');
      const deleted = await server.request('DELETE', `/v0/spaces/plaza/messages/${said.id}`, { token: STEWARD_KEY });
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.equal(deleted.body.deleted_by, null);
      assert.equal(deleted.body.body, '');
      const events = (await server.request('GET', `/v0/spaces/plaza/events?since=0&limit=500`, { token: alice.session })).body.events as FeedEvent[];
      const event = events.find((e) => e.type === 'message_deleted' && (e.payload as { message_id: number }).message_id === said.id)!;
      assert.equal(event.actor, null);
      assert.deepEqual({ deleted_by: (event.payload as { deleted_by: unknown }).deleted_by, via: (event.payload as { via?: unknown }).via }, { deleted_by: null, via: 'steward_key' });
      assertError(await server.request('DELETE', `/v0/spaces/plaza/messages/${said.id}`, { token: STEWARD_KEY }), 'message_deleted');
      // Like an Owner/Host, the steward key reads no one's direct messages, so finds none to delete.
      const dm = await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: alice.session, body: { to: 'bob', body: 'between us' } });
      assertError(await server.request('DELETE', `/v0/spaces/plaza/messages/${dm.body.id}`, { token: STEWARD_KEY }), 'message_not_found');
    });

    it('lets the author or an Owner/Host delete, nobody else, and only once', async () => {
      const mine = await post(alice, 'mine');
      assertError(await remove(bob, mine.id), 'not_message_author');
      assertError(await remove(undefined, mine.id), 'credential_required');
      assertError(await remove(alice, 999_999_999), 'message_not_found');
      const byOwner = await remove(owner, mine.id);
      assert.equal(byOwner.status, 200);
      assert.equal(byOwner.body.deleted_by, 'olivia');
      const before = await lastCursor(server);
      assertError(await remove(alice, mine.id), 'message_deleted');
      assertError(await remove(owner, mine.id), 'message_deleted');
      assertError(
        await server.request('PATCH', `/v0/spaces/plaza/messages/${mine.id}`, { token: alice.session, body: { body: 'back', expected_version: 1 } }),
        'message_deleted',
      );
      assert.equal(await lastCursor(server), before, 'no event was written');

      // An Owner/Host reads no one's direct messages, so cannot find one to delete.
      const dm = await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: alice.session, body: { to: 'bob', body: 'ours' } });
      assertError(await remove(owner, dm.body.id), 'message_not_found');
      assertError(await remove(bob, dm.body.id), 'not_message_author');
      const gone = await remove(alice, dm.body.id);
      assert.equal(gone.status, 200);
      const [deleted] = (await server.request('GET', `/v0/me/inbox-events?since=0`, { token: bob.session })).body.events.filter(
        (e: FeedEvent) => e.type === 'message_deleted',
      );
      assert.equal(deleted, undefined, 'a deletion notifies nobody');
      const conversation = await server.request('GET', `/v0/spaces/plaza/events?since=${before}`);
      assert.equal(
        (conversation.body.events as FeedEvent[]).some((e) => e.payload.message_id === dm.body.id),
        false,
        "a direct message's deletion is its participants' alone, like its other events",
      );
    });

    it('lets an author take their words back even once they may no longer post there', async () => {
      assert.equal((await server.request('POST', '/v0/spaces/plaza/join', { token: carol.session })).status, 200);
      const said = await post(carol, `regretted ${secret()}`);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/members/carol/remove', { token: owner.session })).status, 200);
      assertError(await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: carol.session, body: { body: 'more' } }), 'not_admitted');
      const res = await remove(carol, said.id);
      assert.equal(res.status, 200);
      assert.equal(res.body.deleted_by, 'carol');
      // Back in, for the cases below.
      assert.equal((await server.request('POST', '/v0/spaces/plaza/invitations', { token: owner.session, body: { member: 'carol' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/join', { token: carol.session })).status, 200);
    });

    it('deleting a reply keeps its thread: the root still counts it, and it stays in its place', async () => {
      const root = await post(alice, 'root');
      const reply = await post(bob, `reply ${secret()}`, root.id);
      await post(carol, 'later reply', root.id);
      assert.equal((await remove(bob, reply.id)).status, 200);
      const thread = (await server.request('GET', `/v0/spaces/plaza/channels/general/messages?thread_root=${root.id}`)).body.messages as Message[];
      assert.deepEqual(
        thread.map((m) => [m.body, m.deleted_by]),
        [
          ['later reply', null],
          ['', 'bob'],
          ['root', null],
        ],
      );
      assert.equal(thread.at(-1)!.reply_count, 2);
    });

    it('drops the feed pages that held it on every node', async () => {
      const word = secret();
      const since = await lastCursor(server);
      const message = await post(alice, `cached ${word}`);
      // A full page: each node keeps it for good, unless a deletion takes it away.
      const page = `/v0/spaces/plaza/events?since=${since}&limit=1`;
      let posted = 0;
      for (const node of new Set([server, other])) {
        const first = await node.request('GET', page);
        posted = first.body.events[0].cursor;
        assert.equal(first.body.events[0].payload.body, `cached ${word}`);
        assert.equal((await node.request('GET', page, { headers: { 'if-none-match': first.headers.get('etag')! } })).status, 304, 'the page is kept');
      }
      const deletion = await remove(alice, message.id, other);
      assert.equal(deletion.status, 200);
      for (const node of new Set([server, other])) {
        // Once a node has followed the deletion (a long poll there answers with it), its kept page is gone.
        const followed = await node.request('GET', `/v0/spaces/plaza/events?since=${posted}&wait=10`);
        assert.ok((followed.body.events as FeedEvent[]).some((e) => e.type === 'message_deleted'));
        const again = await node.request('GET', page);
        assert.equal(again.body.events[0].payload.message_id, message.id);
        assert.equal('body' in again.body.events[0].payload, false, 'the node serves the page without the body');
      }
    });
  });
}
