import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_UNREAD_COUNTED } from '../src/read-marks/unread.js';
import { assertRefusal, CliRunner } from './support/cli.js';
import { assertError } from './support/errors.js';
import { McpCaller } from './support/mcp.js';
import { seedMemberKey, storedEvents } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, STEWARD_KEY, type Person, type Schemas, type TestServer } from './support/server.js';

type ReadMark = Schemas['ReadMark'];

// Read marks per conversation (docs/messages.md, "Read marks").
for (const backend of backends()) {
  describe(`Read marks (${backend})`, () => {
    let server: TestServer;
    let ada: Person;
    let ben: Person;
    let cli: CliRunner;

    const post = async (token: string, channel: string, body: string, slug = 'plaza'): Promise<number> => {
      const { data, response } = await server.as(token).POST('/v0/spaces/{slug}/channels/{channel}/messages', { params: { path: { slug, channel } }, body: { body } });
      assert.equal(response.status, 201);
      return data!.id;
    };
    const dm = async (token: string, to: string, body: string): Promise<number> => {
      const { data, response } = await server.as(token).POST('/v0/spaces/{slug}/direct-messages', { params: { path: { slug: 'plaza' } }, body: { to, body } });
      assert.equal(response.status, 201);
      return data!.id;
    };
    const mark = (token: string | undefined, body: Record<string, unknown>, slug = 'plaza') =>
      server.request('POST', `/v0/spaces/${slug}/read-marks`, { ...(token ? { token } : {}), body });
    const marks = async (token: string, slug = 'plaza'): Promise<ReadMark[]> => {
      const { data, response } = await server.as(token).GET('/v0/spaces/{slug}/read-marks', { params: { path: { slug } } });
      assert.equal(response.status, 200);
      return data!.read_marks;
    };
    const unread = async (token: string | undefined, slug = 'plaza'): Promise<Record<string, number | undefined>> => {
      const res = await server.request('GET', `/v0/spaces/${slug}/channels`, token ? { token } : {});
      assert.equal(res.status, 200);
      return Object.fromEntries((res.body.channels as Array<{ name: string; unread?: number }>).map((c) => [c.name, c.unread]));
    };

    before(async () => {
      server = await startServer(backend);
      cli = new CliRunner(server.url);
      ada = await server.human('ada');
      ben = await server.human('ben');
      await activeSpace(server, ada.session, 'plaza');
      await activeSpace(server, ada.session, 'vault', 'invite');
      await activeSpace(server, ada.session, 'annex');
      assert.equal((await server.request('POST', '/v0/spaces/plaza/channels', { token: ada.session, body: { name: 'quiet' } })).status, 201);
    });
    after(async () => {
      await cli.cleanup();
      await server?.stop();
    });

    it("counts others' messages after the caller's mark in each channel, and moves the mark only forward", async () => {
      const first = await post(ada.session, 'general', 'one');
      await post(ben.session, 'general', 'my own message is not unread for me');
      const third = await post(ada.session, 'general', 'three');
      assert.deepEqual(await unread(ben.session), { general: 2, quiet: 0 });
      assert.deepEqual(await unread(ada.session), { general: 1, quiet: 0 });
      // Readers who are not members have no marks, so no counts.
      assert.deepEqual(await unread(undefined), { general: undefined, quiet: undefined });
      assert.deepEqual(await unread(STEWARD_KEY), { general: undefined, quiet: undefined });
      assert.deepEqual(await marks(ben.session), []);

      const moved = await mark(ben.session, { channel: 'general', message_id: first });
      assert.equal(moved.status, 200);
      assert.equal(moved.body.channel, 'general');
      assert.equal(moved.body.with, null);
      assert.equal(moved.body.message_id, first);
      assert.deepEqual(await unread(ben.session), { general: 1, quiet: 0 });
      // The same place again is the same mark.
      assert.deepEqual((await mark(ben.session, { channel: 'general', message_id: first })).body, moved.body);

      const events = (await storedEvents(server)).length;
      assert.equal((await mark(ben.session, { channel: 'general', message_id: third })).status, 200);
      assert.deepEqual(await unread(ben.session), { general: 0, quiet: 0 });
      assert.equal((await storedEvents(server)).length, events, 'a read mark appends no event');

      // Backwards: refused, and the mark stays.
      assertError(await mark(ben.session, { channel: 'general', message_id: first }), 'read_mark_backwards');
      assert.deepEqual((await marks(ben.session)).map((m) => [m.channel, m.message_id]), [['general', third]]);
      // Past the newest message of the channel (an id of another conversation too), or in a channel with none: refused.
      const elsewhere = await post(ada.session, 'general', 'newest', 'annex');
      assertError(await mark(ben.session, { channel: 'general', message_id: elsewhere }), 'read_mark_beyond_head');
      assertError(await mark(ben.session, { channel: 'general', message_id: 999_999 }), 'read_mark_beyond_head');
      assertError(await mark(ben.session, { channel: 'quiet', message_id: first }), 'read_mark_beyond_head');
      assert.deepEqual((await marks(ben.session)).map((m) => [m.channel, m.message_id]), [['general', third]]);
      // Each member has their own.
      assert.deepEqual(await marks(ada.session), []);
    });

    it('keeps a mark per direct conversation', async () => {
      const first = await dm(ada.session, 'ben', 'psst');
      const second = await dm(ada.session, 'ben', 'psst again');
      const res = await mark(ben.session, { with: 'ada', message_id: second });
      assert.equal(res.status, 200);
      assert.deepEqual([res.body.channel, res.body.with, res.body.message_id], [null, 'ada', second]);
      assertError(await mark(ben.session, { with: 'ada', message_id: first }), 'read_mark_backwards');
      // A channel message's id is past the head of this conversation.
      const later = await post(ada.session, 'general', 'later');
      assertError(await mark(ben.session, { with: 'ada', message_id: later }), 'read_mark_beyond_head');
      assert.deepEqual(
        (await marks(ben.session)).map((m) => [m.channel, m.with]),
        [
          ['general', null],
          [null, 'ada'],
        ],
      );
      // Ada has read nothing of it: her mark is hers.
      assert.equal((await mark(ada.session, { with: 'ben', message_id: first })).body.message_id, first);
    });

    it('caps the count, so a long-unread channel costs no more than the cap', async () => {
      assert.equal((await server.request('POST', '/v0/spaces/plaza/channels', { token: ada.session, body: { name: 'busy' } })).status, 201);
      for (let i = 0; i < MAX_UNREAD_COUNTED + 5; i++) await post(ada.session, 'busy', `note ${i}`);
      assert.equal((await unread(ben.session)).busy, MAX_UNREAD_COUNTED);
      const ids = (await server.request('GET', '/v0/spaces/plaza/channels/busy/messages?limit=10', { token: ben.session })).body.messages.map(
        (m: { id: number }) => m.id,
      ) as number[];
      assert.equal((await mark(ben.session, { channel: 'busy', message_id: ids[9]! })).status, 200);
      assert.equal((await unread(ben.session)).busy, 9);
    });

    it('refuses bad input and callers with no marks of their own, and changes nothing', async () => {
      const before = await marks(ben.session);
      const id = await post(ada.session, 'general', 'x');
      for (const body of [
        { message_id: id }, // no conversation
        { channel: 'general', with: 'ada', message_id: id }, // two
        { channel: 'general', message_id: 0 },
        { channel: 'general', message_id: 'x' },
        { channel: 'general' },
        { channel: 'General', message_id: id },
        { channel: 'general', message_id: id, extra: true },
      ]) {
        assertError(await mark(ben.session, body), 'validation_failed', JSON.stringify(body));
      }
      assertError(await mark(ben.session, { with: 'ben', message_id: id }), 'validation_failed');
      assertError(await mark(ben.session, { with: 'nobody', message_id: id }), 'unknown_reference');
      assertError(await mark(ben.session, { channel: 'nowhere', message_id: id }), 'channel_not_found');
      assertError(await mark(ben.session, { channel: 'general', message_id: id }, 'no-such-space'), 'space_not_found');
      assertError(await mark(undefined, { channel: 'general', message_id: id }), 'credential_required');
      assertError(await mark(STEWARD_KEY, { channel: 'general', message_id: id }), 'steward_key_refused');
      // An invite Space the caller was never admitted to.
      assertError(await mark(ben.session, { channel: 'general', message_id: id }, 'vault'), 'not_admitted');
      assertError(await server.request('GET', '/v0/spaces/vault/read-marks', { token: ben.session }), 'not_admitted');
      assert.deepEqual(await marks(ben.session), before);
    });

    it('marks over MCP and the CLI as over REST', async () => {
      const id = await post(ada.session, 'quiet', 'shh');
      const mcp = await McpCaller.connect(server, await seedMemberKey(server, 'ben'));
      try {
        const marked = await mcp.ok('mark_conversation_read', { slug: 'plaza', channel: 'quiet', message_id: id });
        assert.equal((marked.json as ReadMark).message_id, id);
        assert.equal((await mcp.refused('mark_conversation_read', { slug: 'plaza', channel: 'quiet', message_id: id - 1 })).code, 'read_mark_backwards');
        const listed = (await mcp.ok('list_read_marks', { slug: 'plaza' })).json as { read_marks: ReadMark[] };
        assert.deepEqual(listed.read_marks, await marks(ben.session));
      } finally {
        await mcp.close();
      }

      const newer = await post(ada.session, 'quiet', 'shh again');
      const channels = await cli.run(['channels', 'plaza'], { ATRIUM_TOKEN: ben.session });
      assert.equal(channels.code, 0, channels.stderr);
      assert.match(channels.stdout, /^CHANNEL\s+UNREAD\s+TOPIC/m);
      assert.match(channels.stdout, /^quiet\s+1\s/m);
      const marked = await cli.run(['mark-read', 'plaza', 'quiet', String(newer)], { ATRIUM_TOKEN: ben.session });
      assert.equal(marked.code, 0, marked.stderr);
      assert.equal(marked.stdout, `Read #quiet up to message ${newer}.\n`);
      const direct = await cli.run(['mark-read', 'plaza', '@ada', String(newer)], { ATRIUM_TOKEN: ben.session });
      assert.equal(assertRefusal(direct, 422), 'read_mark_beyond_head');
      const listed = await cli.run(['read-marks', 'plaza'], { ATRIUM_TOKEN: ben.session });
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`^#quiet\\s+${newer}\\s`, 'm'));
      assert.match(listed.stdout, /^@ada\s+\d+\s/m);
    });
  });
}
