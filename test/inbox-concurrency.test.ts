import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ContractEvent } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type Person, type TestServer } from './support/server.js';

const MEMBERS = 8;
const POSTS_EACH = 25;

/**
 * protocol: Feeds, under load: members post and send direct messages
 * mentioning each other concurrently over HTTP while readers tail their inboxes
 * and the Space feed, resuming only from the cursors they are handed. Every
 * reader must end with exactly the events it may see: none missed, none twice,
 * cursors strictly increasing, and no direct message shown to an outsider.
 */
for (const backend of backends()) {
  describe(`Inbox and Space feed under concurrent posting (${backend})`, () => {
    let server: TestServer;
    const people: Person[] = [];

    before(async () => {
      server = await startServer(backend);
      for (let i = 0; i < MEMBERS; i++) people.push(await server.human(`member-${i}`));
      assert.equal((await server.request('POST', '/v0/spaces', { token: people[0]!.session, body: { slug: 'hub', name: 'hub' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/hub/approve', { token: STEWARD_KEY })).status, 200);
    });
    after(() => server.stop());

    it('hands every reader exactly its events, once each, in cursor order', async () => {
      const handle = (i: number) => `member-${i % MEMBERS}`;
      const posted: Array<{ id: number; mentioned: string[]; direct?: string[] }> = [];

      const writer = async (i: number) => {
        const me = people[i]!;
        for (let j = 0; j < POSTS_EACH; j++) {
          const direct = j % 5 === 4;
          const res = direct
            ? await server.request('POST', '/v0/spaces/hub/direct-messages', {
                token: me.session,
                body: { to: handle(i + 1 + (j % (MEMBERS - 1))), body: `direct ${i}.${j}` },
              })
            : await server.request('POST', '/v0/spaces/hub/channels/general/messages', {
                token: me.session,
                body: { body: `post ${i}.${j} for @${handle(i + 1)} and @${handle(i + 2 + (j % (MEMBERS - 2)))}` },
              });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          posted.push({ id: res.body.id, mentioned: res.body.mentioned_members, ...(direct ? { direct: res.body.direct_members } : {}) });
        }
      };

      let writing = true;
      const tail = async (path: string, token?: string): Promise<ContractEvent[]> => {
        const seen: ContractEvent[] = [];
        let cursor = 0;
        const page = async () => {
          const res = await server.request('GET', `${path}?since=${cursor}&limit=7`, token ? { token } : {});
          assert.equal(res.status, 200, JSON.stringify(res.body));
          const events = res.body.events as ContractEvent[];
          for (const e of events) {
            assert.ok(e.cursor > (seen.at(-1)?.cursor ?? cursor), `${path}: cursor ${e.cursor} after ${seen.at(-1)?.cursor ?? cursor}`);
            seen.push(e);
          }
          assert.equal(res.body.cursor, events.at(-1)?.cursor ?? cursor);
          cursor = res.body.cursor;
          return events.length;
        };
        while (writing) await page();
        // Every write has committed: drain until an empty page.
        while ((await page()) > 0);
        return seen;
      };

      const inboxReaders = people.map((p) => tail('/v0/me/inbox-events', p.session));
      const publicReader = tail('/v0/spaces/hub/events');
      const participantReader = tail('/v0/spaces/hub/events', people[0]!.session);
      await Promise.all(people.map((_, i) => writer(i)));
      writing = false;
      const [inboxes, publicFeed, participantFeed] = [await Promise.all(inboxReaders), await publicReader, await participantReader];

      assert.equal(posted.length, MEMBERS * POSTS_EACH);
      const messageIds = (events: ContractEvent[]) => events.flatMap((e) => (e.type === 'message_posted' ? [e.payload.message_id] : []));
      const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

      for (let i = 0; i < MEMBERS; i++) {
        const expected = posted.filter((m) => m.mentioned.includes(handle(i))).map((m) => m.id);
        assert.ok(expected.length > 0, `${handle(i)} is mentioned`);
        const got = messageIds(inboxes[i]!);
        assert.equal(got.length, inboxes[i]!.length, 'an inbox holds message events only');
        assert.deepEqual(sorted(got), sorted(expected), `inbox of ${handle(i)}`);
      }

      const channelPosts = posted.filter((m) => !m.direct).map((m) => m.id);
      assert.deepEqual(sorted(messageIds(publicFeed)), sorted(channelPosts), 'the public feed shows no direct message');
      const withMember0 = posted.filter((m) => !m.direct || m.direct.includes(handle(0))).map((m) => m.id);
      assert.ok(withMember0.length > channelPosts.length, `${handle(0)} has direct messages`);
      assert.deepEqual(sorted(messageIds(participantFeed)), sorted(withMember0), "a participant's feed shows its own direct messages");
    });
  });
}
