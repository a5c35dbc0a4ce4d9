import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { operations } from '../src/client/openapi.js';
import type { SearchResult } from '../src/search/schemas.js';
import { assertError } from './support/errors.js';
import { McpCaller } from './support/mcp.js';
import { grantTokens } from './support/oauth.js';
import { seedAgent } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type Person, type Schemas, type TestServer } from './support/server.js';

type SearchPage = Schemas['SearchPage'];

/**
 * Search answers only what its caller may read right now: every kind of record
 * in every kind of Space, and direct messages, searched by every kind of caller
 * through REST and the MCP tool, must come back as exactly the set the read
 * rules give, page by page: nothing the caller may not read, and nothing it may
 * read left out.
 * The rules are restated here from the protocol (`visible` below), not taken
 * from the service.
 */

type Kind = SearchResult['kind'];
/** Every seeded record that holds the common word, by `kind:id`. */
interface Seeded {
  kind: Kind;
  id: number | string;
  space: SpaceSlug;
  channel?: string;
  task_id?: number;
  direct_members?: [string, string];
}

const COMMON = 'permword';

const SPACES = {
  plaza: { join_policy: 'open', status: 'active' },
  forum: { join_policy: 'request', status: 'active' },
  vault: { join_policy: 'invite', status: 'active' },
  cellar: { join_policy: 'invite', status: 'active' },
  draft: { join_policy: 'open', status: 'proposed' },
  attic: { join_policy: 'open', status: 'archived' },
} as const;
type SpaceSlug = keyof typeof SPACES;

/** What a caller is, in the terms the read rules use. */
interface Viewer {
  handle?: string;
  /** A host-wide Owner/Host. */
  hostWide?: boolean;
  /** Spaces the caller is Owner/Host of. */
  hostOf?: readonly SpaceSlug[];
  /** Spaces the caller is admitted to now. */
  admitted?: readonly SpaceSlug[];
  /** An OAuth grant narrowed to these Spaces: elsewhere the caller reads as an anonymous caller would. */
  grant?: readonly SpaceSlug[];
}

const ANONYMOUS: Viewer = {};

function mayRead(viewer: Viewer, space: SpaceSlug): boolean {
  if (viewer.grant && !viewer.grant.includes(space)) return mayRead(ANONYMOUS, space);
  const { join_policy, status } = SPACES[space];
  const ownerHost = viewer.hostWide === true || (viewer.hostOf ?? []).includes(space);
  if (status !== 'active') return ownerHost;
  if (join_policy !== 'invite') return true;
  return ownerHost || (viewer.admitted ?? []).includes(space);
}

/** The read rules: the Space must be readable, and a direct message is its two participants' alone. */
function visible(viewer: Viewer, record: Seeded): boolean {
  if (!mayRead(viewer, record.space)) return false;
  if (!record.direct_members) return true;
  // Outside a narrowed grant the caller counts as anonymous, and anonymous callers are party to no conversation.
  if (viewer.grant && !viewer.grant.includes(record.space)) return false;
  return viewer.handle !== undefined && record.direct_members.includes(viewer.handle);
}

const keyOf = (r: { kind: Kind; id: number | string }) => `${r.kind}:${r.id}`;

/** Arguments of one search: REST's query, as the MCP tool takes them too. */
type SearchArgs = operations['search']['parameters']['query'];
type PageFetch = (args: SearchArgs) => Promise<SearchPage>;

const PAGE = 4;

for (const backend of backends()) {
  describe(`search permissions (${backend})`, () => {
    let server: TestServer;
    /** The second node of the same database (PostgreSQL), or the one node (SQLite). */
    let other: TestServer;
    const people = new Map<string, Person>();
    const tokens = new Map<string, string>();
    const mcp = new Map<string, McpCaller>();
    const seeded = new Map<string, Seeded>();
    let marker = 0;

    const token = (label: string): string => {
      const t = tokens.get(label) ?? people.get(label)?.session;
      assert.ok(t, `no credential for ${label}`);
      return t;
    };
    const post = async (path: string, by: string, body: unknown, on: TestServer = server) => {
      const res = await on.request('POST', path, { token: token(by), body });
      assert.ok(res.status === 200 || res.status === 201, `${path} by ${by}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    /** A text holding the common word and a word no other record holds. */
    const text = (what: string) => `${COMMON} ${what} zqmark${++marker}`;
    const remember = (record: Seeded) => seeded.set(keyOf(record), record);

    /** One of each searchable record in `space`: a channel message, a task, its discussion, a Resource. */
    async function seedSpace(space: SpaceSlug, by: { message: string; task: string; discussion: string; resource: string }) {
      const message = await post(`/v0/spaces/${space}/channels/general/messages`, by.message, { body: text('channel note') });
      remember({ kind: 'message', id: message.id, space, channel: 'general' });
      // Without the common word: a search for it must not bring this back to anyone.
      await post(`/v0/spaces/${space}/channels/general/messages`, by.message, { body: `unrelated chatter zqmark${++marker}` });
      const task = await post(`/v0/spaces/${space}/tasks`, by.task, { kind: 'general', title: text('task title'), body: text('task body') });
      remember({ kind: 'task', id: task.id, space });
      const discussion = await post(`/v0/spaces/${space}/tasks/${task.id}/messages`, by.discussion, { body: text('discussion') });
      remember({ kind: 'message', id: discussion.id, space, task_id: task.id });
      const resource = await post(`/v0/spaces/${space}/resources`, by.resource, { name: text('notes'), content: `# Notes\n\n${text('resource text')}\n` });
      remember({ kind: 'resource', id: resource.id, space });
    }

    async function seedDirect(space: SpaceSlug, from: string, to: string) {
      const message = await post(`/v0/spaces/${space}/direct-messages`, from, { to, body: text(`direct from ${from}`) });
      remember({ kind: 'message', id: message.id, space, direct_members: [from, to].sort() as [string, string] });
    }

    const join = async (space: string, who: string) => {
      await post(`/v0/spaces/${space}/invitations`, 'olivia', { member: who });
      await post(`/v0/spaces/${space}/join`, who, undefined);
    };

    before(async () => {
      // Every anonymous search here comes from one loopback address, and this file is not about that limit.
      const env = { ATRIUM_SEARCH_ANONYMOUS_RATE_LIMIT: '100000' };
      server = await startServer(backend, { env });
      // Nodes of one deployment share its base URL, which names the resource an OAuth token works at.
      other = backend === 'postgres' ? await startServer(backend, { shareWith: server, env: { ...env, ATRIUM_BASE_URL: server.url } }) : server;
      people.set('olivia', await server.human('olivia', { role: 'owner' }));
      for (const handle of ['alice', 'bob', 'carol', 'dora', 'rex', 'sue', 'gina']) people.set(handle, await server.human(handle));
      // An agent of a host-wide Owner: it reads by its own admission, never by its operator's role.
      tokens.set('bot', (await seedAgent(server, 'bot', 'olivia', 'active')).key);
      // A pending agent's key authenticates, and reads what an anonymous caller reads.
      tokens.set('newbie', (await seedAgent(server, 'newbie', 'olivia', 'pending')).key);

      for (const [slug, { join_policy }] of Object.entries(SPACES)) {
        await post('/v0/spaces', 'olivia', { slug, name: `The ${slug}`, join_policy });
        await post(`/v0/spaces/${slug}/approve`, 'olivia', undefined);
      }
      people.set('hana', await server.human('hana', { role: 'host', space: 'attic' }));
      for (const who of ['alice', 'bob', 'dora', 'rex', 'sue', 'bot']) await join('vault', who);
      // Admission in a Space that later leaves `active` gives nothing there: only its Owner/Host reads it.
      for (const [space, who] of [
        ['draft', 'alice'],
        ['attic', 'bob'],
        ['attic', 'bot'],
      ] as Array<[string, string]>) {
        await post(`/v0/spaces/${space}/join`, who, undefined);
      }

      // Authors vary, so that no rule "an author sees their own" can pass for the read rules.
      await seedSpace('plaza', { message: 'carol', task: 'carol', discussion: 'alice', resource: 'bob' });
      await seedSpace('forum', { message: 'olivia', task: 'olivia', discussion: 'olivia', resource: 'olivia' });
      await seedSpace('vault', { message: 'rex', task: 'alice', discussion: 'bot', resource: 'dora' });
      await seedSpace('cellar', { message: 'olivia', task: 'olivia', discussion: 'olivia', resource: 'olivia' });
      await seedSpace('draft', { message: 'alice', task: 'alice', discussion: 'alice', resource: 'alice' });
      await seedSpace('attic', { message: 'bob', task: 'bob', discussion: 'bob', resource: 'bob' });
      await seedDirect('plaza', 'alice', 'bob');
      await seedDirect('plaza', 'rex', 'alice');
      await seedDirect('plaza', 'olivia', 'carol');
      await seedDirect('vault', 'bob', 'alice');
      await seedDirect('vault', 'alice', 'rex');
      // The agent's operator is a host-wide Owner, and still no party to the agent's conversations.
      await seedDirect('vault', 'bot', 'dora');

      // No operation takes an active Space back to `proposed` or to `archived`, yet content written while a
      // Space was active is what search would find there: the states are set on the rows, as a Space
      // record with content in them would be. Nothing on this node has kept these Space records.
      for (const slug of ['draft', 'attic'] as const) {
        await server.app.ctx.db.kysely.updateTable('spaces').set({ status: SPACES[slug].status }).where('slug', '=', slug).execute();
      }

      tokens.set('alice-oauth', (await grantTokens(server, token('alice'), { acting_member: 'alice', scope: 'read', spaces: ['vault'], resource: 'rest' })).access_token);
      tokens.set('alice-oauth-mcp', (await grantTokens(server, token('alice'), { acting_member: 'alice', scope: 'read', spaces: ['vault'], resource: 'mcp' })).access_token);
      tokens.set('olivia-oauth', (await grantTokens(server, token('olivia'), { acting_member: 'olivia', scope: 'read', spaces: ['attic'], resource: 'rest' })).access_token);
      tokens.set('olivia-oauth-mcp', (await grantTokens(server, token('olivia'), { acting_member: 'olivia', scope: 'read', spaces: ['attic'], resource: 'mcp' })).access_token);
    });

    after(async () => {
      for (const caller of mcp.values()) await caller.close();
      if (other !== server) await other?.stop();
      await server?.stop();
    });

    const restPages =
      (credential: string | undefined, on: TestServer = server): PageFetch =>
      async (args) => {
        const { data, error, response } = await (credential ? on.as(credential) : on.api).GET('/v0/search', { params: { query: args } });
        assert.equal(response.status, 200, `search ${JSON.stringify(args)}: ${JSON.stringify(error)}`);
        return data!;
      };
    const mcpCaller = async (label: string): Promise<McpCaller> => {
      let caller = mcp.get(label);
      if (!caller) {
        caller = await McpCaller.connect(server, token(label));
        mcp.set(label, caller);
      }
      return caller;
    };
    const mcpPages =
      (label: string): PageFetch =>
      async (args) =>
        (await (await mcpCaller(label)).ok('search', args)).json as SearchPage;

    /**
     * Every result of a search, following `next_cursor` to the end; each page
     * at most `limit` long, nothing twice, and every result agreeing with the
     * record it names (Space, channel, task, participants).
     */
    async function searchAll(fetchPage: PageFetch, args: SearchArgs): Promise<Set<string>> {
      const found: string[] = [];
      let cursor: string | undefined;
      for (let pages = 1; ; pages++) {
        assert.ok(pages <= 50, `paging through ${JSON.stringify(args)} does not end`);
        const page = await fetchPage(cursor === undefined ? args : { ...args, cursor });
        assert.ok(page.results.length <= (args.limit ?? 20), `a page holds at most limit results: ${page.results.length}`);
        for (const result of page.results) {
          found.push(keyOf(result));
          const record = seeded.get(keyOf(result));
          if (!record) continue;
          assert.equal(result.space, record.space, keyOf(result));
          assert.equal(result.channel, record.channel, `${keyOf(result)}: channel`);
          assert.equal(result.task_id, record.task_id, `${keyOf(result)}: task_id`);
          assert.deepEqual(result.direct_members, record.direct_members, `${keyOf(result)}: direct_members`);
        }
        if (page.next_cursor === null) break;
        cursor = page.next_cursor;
      }
      assert.equal(new Set(found).size, found.length, `a result came twice across pages: ${found.join(' ')}`);
      return new Set(found);
    }

    /** The seeded records `viewer` may read that `filter` keeps. */
    const expected = (viewer: Viewer, filter: (r: Seeded) => boolean = () => true): Set<string> =>
      new Set([...seeded.values()].filter((r) => visible(viewer, r) && filter(r)).map(keyOf));

    /** Exactly what the rules give, named by what leaked and what was missed. */
    function assertExactly(got: Set<string>, want: Set<string>, label: string) {
      const leaked = [...got].filter((k) => !want.has(k)).map((k) => describeKey(k));
      const missed = [...want].filter((k) => !got.has(k)).map((k) => describeKey(k));
      assert.deepEqual({ leaked, missed }, { leaked: [], missed: [] }, label);
    }
    const describeKey = (k: string) => {
      const r = seeded.get(k);
      if (!r) return `${k} (not seeded)`;
      return `${k} in ${r.space}${r.direct_members ? ` (direct ${r.direct_members.join('/')})` : ''}${r.task_id ? ` (task ${r.task_id})` : ''}`;
    };

    /** Searches as `label` over REST (and over MCP as `mcpLabel`, when given) and asserts exactly `want` each way. */
    async function assertSearch(label: string, credential: string | undefined, mcpLabel: string | undefined, args: SearchArgs, want: Set<string>) {
      assertExactly(await searchAll(restPages(credential), args), want, `${label} over REST, ${JSON.stringify(args)}`);
      if (mcpLabel) assertExactly(await searchAll(mcpPages(mcpLabel), args), want, `${label} over MCP, ${JSON.stringify(args)}`);
    }

    const CALLERS: Array<{ label: string; viewer: Viewer; rest?: string; mcp?: string; what: string }> = [
      { label: 'anonymous', viewer: ANONYMOUS, what: 'an anonymous caller reads the public Spaces only' },
      { label: 'carol', viewer: { handle: 'carol' }, rest: 'carol', mcp: 'carol', what: 'a member of no Space: the public Spaces and her own conversation' },
      { label: 'dora', viewer: { handle: 'dora', admitted: ['vault'] }, rest: 'dora', mcp: 'dora', what: 'a member admitted to the invite Space, third to its other conversations' },
      { label: 'alice', viewer: { handle: 'alice', admitted: ['vault'] }, rest: 'alice', mcp: 'alice', what: 'a participant in direct messages in two Spaces' },
      { label: 'bob', viewer: { handle: 'bob', admitted: ['vault'] }, rest: 'bob', mcp: 'bob', what: 'the other participant' },
      { label: 'bot', viewer: { handle: 'bot', admitted: ['vault'] }, rest: 'bot', mcp: 'bot', what: "an admitted agent of a host-wide Owner: its own admission, none of its operator's role" },
      { label: 'newbie', viewer: ANONYMOUS, rest: 'newbie', mcp: 'newbie', what: 'a pending agent reads what an anonymous caller reads' },
      { label: 'olivia', viewer: { handle: 'olivia', hostWide: true }, rest: 'olivia', mcp: 'olivia', what: "a host-wide Owner: every Space in every state, and no one else's conversations" },
      { label: 'hana', viewer: { handle: 'hana', hostOf: ['attic'] }, rest: 'hana', mcp: 'hana', what: 'the Host of the archived Space: that Space, and no other closed one' },
      {
        label: 'alice-oauth',
        viewer: { handle: 'alice', admitted: ['vault'], grant: ['vault'] },
        rest: 'alice-oauth',
        mcp: 'alice-oauth-mcp',
        what: 'a token narrowed to the invite Space: that Space as its member, the others as an anonymous caller',
      },
      {
        label: 'olivia-oauth',
        viewer: { handle: 'olivia', hostWide: true, grant: ['attic'] },
        rest: 'olivia-oauth',
        mcp: 'olivia-oauth-mcp',
        what: "an Owner's token narrowed to the archived Space: that Space as Owner, the others as an anonymous caller",
      },
    ];

    for (const caller of CALLERS) {
      it(`${caller.label}: ${caller.what}, exactly, page by page, over REST${caller.mcp ? ' and MCP' : ''}`, async () => {
        const want = expected(caller.viewer);
        assert.ok(want.size > 0 && want.size < seeded.size, 'the expected set is neither empty nor everything');
        await assertSearch(caller.label, caller.rest && token(caller.rest), caller.mcp, { q: COMMON, limit: PAGE }, want);
        // The same, newest first and in pages of one.
        await assertSearch(caller.label, caller.rest && token(caller.rest), undefined, { q: COMMON, limit: 1, sort: 'newest' }, want);
      });
    }

    it('the steward key reads every Space, and no conversation', async () => {
      // It works wherever an Owner/Host does, but it is not a member: no direct message is its.
      const want = expected({ hostWide: true });
      assertExactly(await searchAll(restPages(STEWARD_KEY), { q: COMMON, limit: 10 }), want, 'steward key');
    });

    it('narrows by Space (`in:`, `space=`), by kind and to direct messages (`is:dm`) within what the caller may read', async () => {
      const alice: Viewer = { handle: 'alice', admitted: ['vault'] };
      const olivia: Viewer = { handle: 'olivia', hostWide: true };
      const bot: Viewer = { handle: 'bot', admitted: ['vault'] };
      const inSpace = (s: SpaceSlug) => (r: Seeded) => r.space === s;
      const direct = (r: Seeded) => r.direct_members !== undefined;

      await assertSearch('alice', token('alice'), 'alice', { q: `${COMMON} in:vault`, limit: PAGE }, expected(alice, inSpace('vault')));
      await assertSearch('alice', token('alice'), 'alice', { q: COMMON, space: 'vault', limit: PAGE }, expected(alice, inSpace('vault')));
      await assertSearch('alice', token('alice'), 'alice', { q: `${COMMON} is:dm`, limit: PAGE }, expected(alice, direct));
      await assertSearch('alice', token('alice'), undefined, { q: `${COMMON} is:dm in:plaza`, limit: PAGE }, expected(alice, (r) => direct(r) && r.space === 'plaza'));
      await assertSearch('olivia', token('olivia'), 'olivia', { q: `${COMMON} in:attic`, limit: PAGE }, expected(olivia, inSpace('attic')));
      await assertSearch('olivia', token('olivia'), 'olivia', { q: `${COMMON} is:dm`, limit: PAGE }, expected(olivia, direct));
      await assertSearch('olivia', token('olivia'), undefined, { q: COMMON, kind: 'task', limit: PAGE }, expected(olivia, (r) => r.kind === 'task'));
      await assertSearch('dora', token('dora'), 'dora', { q: `${COMMON} is:dm`, limit: PAGE }, expected({ handle: 'dora', admitted: ['vault'] }, direct));

      // Naming a Space one may not read finds nothing there: the filter narrows, it never widens.
      for (const [label, viewer, q] of [
        ['bot', bot, `${COMMON} in:draft`],
        ['bot', bot, `${COMMON} in:cellar`],
        ['carol', { handle: 'carol' }, `${COMMON} in:vault`],
        ['carol', { handle: 'carol' }, `${COMMON} in:vault is:dm`],
      ] as Array<[string, Viewer, string]>) {
        assert.equal(expected(viewer, (r) => r.space === q.split('in:')[1]!.split(' ')[0]).size, 0);
        await assertSearch(label, token(label), label, { q, limit: PAGE }, new Set());
      }
      const anonymousVault = await server.request('GET', `/v0/search?${new URLSearchParams({ q: `${COMMON} in:vault` }).toString()}`);
      assert.equal(anonymousVault.status, 200, JSON.stringify(anonymousVault.body));
      assert.deepEqual(anonymousVault.body.results, []);
    });

    it('a removed member loses the Space from the very next search, its conversations there included', async () => {
      const admitted: Viewer = { handle: 'rex', admitted: ['vault'] };
      const removed: Viewer = { handle: 'rex' };
      assert.ok(expected(removed).size < expected(admitted).size);
      await assertSearch('rex', token('rex'), 'rex', { q: COMMON, limit: PAGE }, expected(admitted));

      await post('/v0/spaces/vault/members/rex/remove', 'olivia', undefined);
      await assertSearch('rex (removed)', token('rex'), 'rex', { q: COMMON, limit: PAGE }, expected(removed));
      await assertSearch('rex (removed)', token('rex'), undefined, { q: `${COMMON} in:vault`, limit: PAGE }, new Set());
      // The other participant still reads the conversation: only the removed member lost the Space.
      const alice: Viewer = { handle: 'alice', admitted: ['vault'] };
      await assertSearch('alice', token('alice'), undefined, { q: `${COMMON} is:dm`, limit: PAGE }, expected(alice, (r) => r.direct_members !== undefined));
    });

    it('a suspended member is refused from the next search on, over REST and MCP', async () => {
      const sue: Viewer = { handle: 'sue', admitted: ['vault'] };
      await assertSearch('sue', token('sue'), 'sue', { q: COMMON, limit: PAGE }, expected(sue));

      await post('/v0/members/sue/suspend', 'olivia', {});
      assertError(await server.request('GET', `/v0/search?q=${COMMON}`, { token: token('sue') }), 'member_suspended');
      await assert.rejects(mcpPages('sue')({ q: COMMON }), (err: unknown) => err instanceof StreamableHTTPError && err.code === 403);
    });

    it('a committed write is found by the next request on any node', async () => {
      // Words of their own, so that no other case's expected set moves.
      const fresh = (what: string) => `nodeword ${what} zqfresh${++marker}`;
      const only = async (q: string, credential: string | undefined, want: Array<{ kind: Kind; id: number | string }>, on: TestServer = other) =>
        assertExactly(await searchAll(restPages(credential, on), { q, limit: PAGE }), new Set(want.map(keyOf)), `${q} on the ${on === other ? 'other' : 'first'} node`);

      const message = await post('/v0/spaces/plaza/channels/general/messages', 'carol', { body: fresh('message') });
      await only(`zqfresh${marker}`, undefined, [{ kind: 'message', id: message.id }]);
      // And the other way round.
      const direct = await post('/v0/spaces/plaza/direct-messages', 'carol', { to: 'dora', body: fresh('direct') }, other);
      await only(`zqfresh${marker}`, token('dora'), [{ kind: 'message', id: direct.id }], server);
      await only(`zqfresh${marker}`, token('alice'), [], server);
      const task = await post('/v0/spaces/plaza/tasks', 'carol', { kind: 'general', title: fresh('task') });
      await only(`zqfresh${marker}`, undefined, [{ kind: 'task', id: task.id }]);
      const discussion = await post(`/v0/spaces/plaza/tasks/${task.id}/messages`, 'dora', { body: fresh('discussion') });
      await only(`zqfresh${marker}`, undefined, [{ kind: 'message', id: discussion.id }]);
      const resource = await post('/v0/spaces/plaza/resources', 'carol', { name: 'Fresh notes', content: fresh('first version') });
      const firstWord = `zqfresh${marker}`;
      await only(firstWord, undefined, [{ kind: 'resource', id: resource.id }]);
      await post(`/v0/spaces/plaza/resources/${resource.id}/versions`, 'dora', { content: fresh('second version') });
      await only(`zqfresh${marker}`, undefined, [{ kind: 'resource', id: resource.id }]);
      // Only the current version is searched.
      await only(firstWord, undefined, []);
      // A pin proposal is a task, made current by its own event rather than task_created.
      const proposal = await post('/v0/spaces/plaza/pin-proposals', 'carol', { resource_id: resource.id, rationale: fresh('pin proposal') });
      await only(`zqfresh${marker}`, undefined, [{ kind: 'task', id: proposal.id }]);
    });

    it('a deleted message is never found', async () => {
      const word = `zqgone${++marker}`;
      const channel = await post('/v0/spaces/plaza/channels/general/messages', 'carol', { body: `gonewords ${word}` });
      const direct = await post('/v0/spaces/plaza/direct-messages', 'carol', { to: 'dora', body: `gonewords ${word}` }, other);
      const inVault = await post('/v0/spaces/vault/channels/general/messages', 'dora', { body: `gonewords ${word}` });
      const keys = (...records: Array<{ id: number }>) => new Set(records.map((r) => keyOf({ kind: 'message', id: r.id })));
      assertExactly(await searchAll(restPages(token('dora')), { q: word, limit: PAGE }), keys(channel, direct, inVault), 'dora, before');

      // Each by someone allowed to: its author, on either node, or an Owner/Host of the Space.
      for (const [record, space, by, on] of [
        [channel, 'plaza', 'carol', other],
        [direct, 'plaza', 'carol', server],
        [inVault, 'vault', 'olivia', other],
      ] as const) {
        const res = await on.request('DELETE', `/v0/spaces/${space}/messages/${record.id}`, { token: token(by) });
        assert.equal(res.status, 200, `${by} deletes ${record.id}: ${JSON.stringify(res.body)}`);
      }
      for (const label of ['carol', 'dora', 'rex', 'olivia', 'bot']) {
        for (const on of new Set([server, other])) {
          assertExactly(await searchAll(restPages(token(label), on), { q: word, limit: PAGE }), new Set(), `${label} over REST`);
          assertExactly(await searchAll(restPages(token(label), on), { q: 'gonewords', limit: PAGE }), new Set(), `${label} over REST, by the other word`);
        }
        assertExactly(await searchAll(mcpPages(label), { q: word, limit: PAGE }), new Set(), `${label} over MCP`);
      }
      assertExactly(await searchAll(restPages(undefined, other), { q: word, limit: PAGE }), new Set(), 'anonymous');
    });

    it('access lost on one node is lost on the other at once', async () => {
      await post('/v0/spaces', 'olivia', { slug: 'annex', name: 'The annex', join_policy: 'invite' });
      await post('/v0/spaces/annex/approve', 'olivia', undefined);
      await join('annex', 'gina');
      const message = await post('/v0/spaces/annex/channels/general/messages', 'olivia', { body: 'annexword only for the admitted' });
      const search = async () => searchAll(restPages(token('gina'), other), { q: 'annexword', limit: PAGE });
      assertExactly(await search(), new Set([keyOf({ kind: 'message', id: message.id })]), 'gina, admitted, on the other node');
      await post('/v0/spaces/annex/members/gina/remove', 'olivia', undefined);
      assertExactly(await search(), new Set(), 'gina, removed on the first node, on the other');
    });

    it('refuses what cannot be searched with 422, answers the rest within what the caller may read, and never a 5xx', async () => {
      const carol: Viewer = { handle: 'carol' };
      const all = expected(carol);
      const none = new Set<string>();
      const ask = (params: Record<string, string>) => server.request('GET', `/v0/search?${new URLSearchParams(params).toString()}`, { token: token('carol') });

      // Outside the request's schema, or text no database can store: the edge refuses these before the
      // query language sees them, as it refuses them on every operation (docs/protocol.md, "Errors").
      for (const params of [
        { q: '' },
        { q: 'a'.repeat(501) },
        { q: `${COMMON} ${'from:carol '.repeat(200)}` },
        { q: '\u0000' },
        { q: `${COMMON}\u0000` },
        { q: COMMON, limit: '0' },
        { q: COMMON, limit: '101' },
        { q: COMMON, kind: 'space' },
        { q: COMMON, sort: 'oldest' },
      ] as Array<Record<string, string>>) {
        assertError(await ask(params), 'validation_failed', JSON.stringify(params));
      }

      // Nothing to search for, too many clauses, or an operator with a bad value (docs/search.md, "What is refused").
      const refused = [
        '"',
        '*',
        '-',
        '&&',
        ':*',
        '\\',
        '\\\\',
        '\u0001',
        '()',
        '^',
        '*'.repeat(500),
        // Words to leave out alone would list everything the caller may read.
        `-${COMMON}`,
        '-"old plan"',
        // More than 32 words, phrases and operators, within 500 characters.
        `${COMMON} ${'x '.repeat(32)}`,
        `${COMMON} ${'-x '.repeat(163)}`,
        `${COMMON} ${'"a b" '.repeat(81)}`,
        `${COMMON} ${'in:plaza '.repeat(54)}`,
        `${COMMON} ${'is:dm '.repeat(81)}`,
        `${COMMON} from:`,
        `${COMMON} from: carol`,
        `${COMMON} from:"carol"`,
        `${COMMON} -from:carol`,
        `${COMMON} in:`,
        `${COMMON} in:Not_A_Slug`,
        `${COMMON} kind:`,
        `${COMMON} kind:space`,
        `${COMMON} is:`,
        `${COMMON} is:secret`,
        `${COMMON} after:`,
        `${COMMON} before:yesterday`,
        `${COMMON} after:2026-13-45`,
        `${COMMON} before:2026-02-30`,
      ];
      // Every query is asked before any is judged, so that one run shows every failure.
      const shown = (q: string) => (q.length > 40 ? `${JSON.stringify(q.slice(0, 40))}… (${[...q].length} characters)` : JSON.stringify(q));
      const notRefused = [];
      for (const q of refused) {
        const res = await ask({ q });
        if (res.status !== 422 || res.headers.get('atrium-error') !== 'search_query_invalid') notRefused.push({ q: shown(q), status: res.status, code: res.headers.get('atrium-error') });
      }
      const mcpRefusal = await (await mcpCaller('carol')).refused('search', { q: '"' });
      assert.deepEqual({ code: mcpRefusal.code, status: mcpRefusal.status }, { code: 'search_query_invalid', status: 422 });

      // Syntax of the databases' own query languages is text like any other: what terms it gives are
      // searched, and the answer is still exactly what the caller may read of what matches.
      const answered: Array<[string, Set<string>]> = [
        ['a'.repeat(500), none],
        [`${COMMON} ${'x '.repeat(31)}`, none],
        [`"${COMMON}`, all],
        [`${COMMON}"`, all],
        ['NEAR(', none],
        [`NEAR(${COMMON} zqmark1)`, none],
        [`${COMMON} && !x`, none],
        [`${COMMON} &&`, all],
        [`${COMMON}:*`, all],
        [`\\${COMMON}\\`, all],
        [`${COMMON}' OR '1'='1`, none],
        [`${COMMON}'); DROP TABLE messages; --`, none],
        [`${COMMON} | x`, none],
        [`{${COMMON}}`, all],
        [`${COMMON}*`, all],
        [`${COMMON} -${COMMON}`, none],
        [`${COMMON}\u0001`, all],
        [`${COMMON}\u200b`, all],
        [`${COMMON} note:x`, none],
        ['x*'.repeat(250), none],
        // Well-formed names of nothing find nothing.
        [`${COMMON} from:nobody-here`, none],
        [`${COMMON} in:plaza/no-such-channel`, none],
      ];
      const notAnswered = [];
      for (const [q, want] of answered) {
        const res = await ask({ q });
        if (res.status !== 200) {
          notAnswered.push({ q: shown(q), status: res.status, code: res.headers.get('atrium-error') });
          continue;
        }
        const got = await searchAll(restPages(token('carol')), { q, limit: 100 });
        const leaked = [...got].filter((k) => !want.has(k)).map(describeKey);
        const missed = [...want].filter((k) => !got.has(k)).map(describeKey);
        if (leaked.length > 0 || missed.length > 0) notAnswered.push({ q: shown(q), leaked, missed });
      }
      assert.deepEqual(
        { notRefused, notAnswered },
        { notRefused: [], notAnswered: [] },
        'the first are refused 422 search_query_invalid; the others answered 200 with exactly what matches and carol may read',
      );

      // A Space that does not exist is refused (one the caller may not read is not: it only finds nothing there).
      for (const params of [{ q: `${COMMON} in:no-such-space` }, { q: `${COMMON} in:no-such-space/general` }, { q: COMMON, space: 'no-such-space' }] as Array<
        Record<string, string>
      >) {
        assertError(await ask(params), 'search_query_invalid', JSON.stringify(params));
      }

      // A cursor belongs to its query and its filters.
      const first = await ask({ q: COMMON, limit: '1' });
      assert.equal(first.status, 200);
      const cursor = (first.body as SearchPage).next_cursor;
      assert.ok(cursor);
      assert.equal((await ask({ q: COMMON, limit: '1', cursor })).status, 200);
      for (const params of [
        { q: `${COMMON} zqmark1`, limit: '1', cursor },
        { q: COMMON, limit: '1', kind: 'task', cursor },
        { q: COMMON, limit: '1', space: 'plaza', cursor },
        { q: COMMON, limit: '1', sort: 'newest', cursor },
        { q: COMMON, limit: '1', cursor: cursor.slice(0, -3) },
        { q: COMMON, limit: '1', cursor: 'not-a-cursor' },
        { q: COMMON, limit: '1', cursor: Buffer.from('{"q":"x","o":-1}').toString('base64url') },
      ] as Array<Record<string, string>>) {
        assertError(await ask(params), 'search_cursor_invalid', JSON.stringify(params));
      }
    });
  });
}
