import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../src/shared/secrets.js';
import { seedMemberKey } from './support/seed.js';
import { type ContractPage } from './support/events.js';
import { STEWARD_KEY, backends, startServer, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/**
 * What a node keeps of its reads (docs/resources.md, "Kept documents";
 * docs/events.md, "Kept pages"): a Resource as it was last served, for the
 * Space's head, and a member's inbox pages, for the member's access version.
 * Each test first shows that the node does keep (a row changed behind its back
 * is not seen while the kept answer stands), then that nothing kept outlives
 * the change that makes it untrue. On PostgreSQL a second node of the same
 * database reads, so the changes are heard from another node.
 */
for (const backend of backends()) {
  describe(`Reads a node keeps (${backend})`, () => {
    let first: TestServer;
    /** Another node of the same database on PostgreSQL; the same node on SQLite. */
    let second: TestServer;
    let owner: { handle: string; session: string };

    before(async () => {
      first = await startServer(backend);
      second = backend === 'postgres' ? await startServer(backend, { shareWith: first, env: { ATRIUM_BASE_URL: first.url } }) : first;
      owner = await first.human('keep-owner', { role: 'owner' });
      for (const [slug, join_policy] of [
        ['kept-open', 'open'],
        ['kept-closed', 'invite'],
      ] as const) {
        assert.equal((await first.request('POST', '/v0/spaces', { token: owner.session, body: { slug, name: slug, join_policy } })).status, 201);
        assert.equal((await first.request('POST', `/v0/spaces/${slug}/approve`, { token: owner.session })).status, 200);
      }
    });
    after(async () => {
      if (second !== first) await second.stop();
      await first.stop();
    });

    /** Resolves once `server` has followed the log up to `cursor` (a long poll of the host feed answers then). */
    const followed = async (server: TestServer, cursor: number): Promise<void> => {
      const page = await server.request('GET', `/v0/events?since=${cursor - 1}&limit=1&wait=30`, { token: STEWARD_KEY });
      assert.equal(page.status, 200);
      assert.ok((page.body as ContractPage).events.length === 1, `node followed the log to ${cursor}`);
    };
    const headOf = async (slug: string): Promise<number> =>
      (await first.request('GET', `/v0/spaces/${slug}/events?newest=1`, { token: owner.session })).body.cursor as number;

    /** On PostgreSQL, resolves once `server` keeps nothing for `key`: it has heard the change another node wrote. */
    const forgotten = (server: TestServer, key: string): Promise<void> => {
      const gone = () => server.app.ctx.memberKeys.get(hashSecret(key)) === undefined;
      if (backend === 'sqlite' || gone()) return Promise.resolve();
      return new Promise((resolve) => server.app.ctx.memberKeys.changes.onChange(() => gone() && resolve()));
    };
    // A node that never hears a change would wait forever: the bound turns that into a failure.
    const HEARD_WITHIN = { timeout: 60_000 };

    describe('Resources', () => {
      it('serves a Resource as kept while its Space has no new event, with a tag naming its version, and the next version at once', HEARD_WITHIN, async () => {
        const created = await first.request('POST', '/v0/spaces/kept-open/resources', { token: owner.session, body: { name: 'Plan', content: '# Plan\n\nFirst.' } });
        assert.equal(created.status, 201);
        const id = created.body.id as string;
        await followed(second, await headOf('kept-open'));
        const read = await second.request('GET', `/v0/spaces/kept-open/resources/${id}`);
        assert.equal(read.status, 200);
        assert.equal(read.headers.get('etag'), `W/"${id}.1"`);
        assert.equal(read.body.content, '# Plan\n\nFirst.');

        // Changed behind the node's back, with no event: the node answers with what it kept.
        await first.app.ctx.db.kysely.updateTable('resources').set({ updated_ts: '2000-01-01T00:00:00.000Z' }).where('id', '=', id).execute();
        const again = await second.request('GET', `/v0/spaces/kept-open/resources/${id}`);
        assert.equal(again.body.updated_ts, read.body.updated_ts, 'served as kept');
        assert.equal((await second.request('GET', `/v0/spaces/kept-open/resources/${id}`, { headers: { 'if-none-match': read.headers.get('etag')! } })).status, 304);

        const updated = await first.request('POST', `/v0/spaces/kept-open/resources/${id}/versions`, {
          token: owner.session,
          body: { name: 'Plan, revised', content: '# Plan\n\nSecond.', expected_version: 1 },
        });
        assert.equal(updated.status, 201);
        await followed(second, await headOf('kept-open'));
        const next = await second.request('GET', `/v0/spaces/kept-open/resources/${id}`, { headers: { 'if-none-match': read.headers.get('etag')! } });
        assert.equal(next.status, 200);
        assert.equal(next.headers.get('etag'), `W/"${id}.2"`);
        assert.deepEqual([next.body.current_version, next.body.name, next.body.content], [2, 'Plan, revised', '# Plan\n\nSecond.']);
      });

      it('decides who may read on every request: a kept Resource of an invite Space is refused to a removed member and to no credential', async () => {
        const ann = await first.human('keep-ann');
        assert.equal((await first.request('POST', '/v0/spaces/kept-closed/invitations', { token: owner.session, body: { member: ann.handle } })).status, 201);
        assert.equal((await first.request('POST', '/v0/spaces/kept-closed/join', { token: ann.session })).status, 200);
        const created = await first.request('POST', '/v0/spaces/kept-closed/resources', { token: owner.session, body: { name: 'Secret', content: 'Only for us.' } });
        assert.equal(created.status, 201);
        const path = `/v0/spaces/kept-closed/resources/${created.body.id as string}`;
        const read = await first.request('GET', path, { token: ann.session });
        assert.equal(read.status, 200);
        assertError(await first.request('GET', path), 'credential_required');
        assert.equal((await first.request('POST', `/v0/spaces/kept-closed/members/${ann.handle}/remove`, { token: owner.session })).status, 200);
        assertError(await first.request('GET', path, { token: ann.session, headers: { 'if-none-match': read.headers.get('etag')! } }), 'not_admitted');
      });

      it('answers a kept Resource only at its own Space: the same id under another Space is not found', async () => {
        const created = await first.request('POST', '/v0/spaces/kept-open/resources', { token: owner.session, body: { name: 'Here', content: 'Here only.' } });
        assert.equal(created.status, 201);
        const id = created.body.id as string;
        assert.equal((await first.request('GET', `/v0/spaces/kept-open/resources/${id}`)).status, 200);
        assertError(await first.request('GET', `/v0/spaces/kept-closed/resources/${id}`, { token: owner.session }), 'resource_not_found');
        const other = `${id.slice(0, -1)}${id.endsWith('a') ? 'b' : 'a'}`;
        assertError(await first.request('GET', `/v0/spaces/kept-open/resources/${other}`), 'resource_not_found');
      });
    });

    describe('inbox pages', () => {
      it('keeps a reader\'s inbox page, and reads it afresh once an admission or a role changes what they may read', HEARD_WITHIN, async () => {
        const ben = await first.human('keep-ben');
        const key = await seedMemberKey(first, ben.handle);
        assert.equal((await first.request('POST', '/v0/spaces/kept-closed/invitations', { token: owner.session, body: { member: ben.handle } })).status, 201);
        assert.equal((await first.request('POST', '/v0/spaces/kept-closed/join', { token: ben.session })).status, 200);
        assert.equal((await first.request('POST', '/v0/spaces/kept-open/join', { token: ben.session })).status, 200);
        const ping = await first.request('POST', '/v0/spaces/kept-closed/channels/general/messages', { token: owner.session, body: { body: 'closed ping @keep-ben' } });
        const open = await first.request('POST', '/v0/spaces/kept-open/channels/general/messages', { token: owner.session, body: { body: 'open ping @keep-ben' } });
        assert.equal(ping.status, 201);
        assert.equal(open.status, 201);
        await followed(second, await headOf('kept-open'));

        const bodies = async (token: string, server = second): Promise<string[]> => {
          const page = await server.request('GET', '/v0/me/inbox-events?since=0', { token });
          assert.equal(page.status, 200);
          return (page.body as ContractPage).events.map((e) => (e.type === 'message_posted' ? (e.payload.body ?? '') : ''));
        };
        for (const token of [ben.session, key]) assert.deepEqual(await bodies(token), ['closed ping @keep-ben', 'open ping @keep-ben']);

        // Changed behind the node's back, with no event: each reader gets the page kept for them.
        await first.app.ctx.db.kysely.updateTable('messages').set({ body: 'changed behind its back' }).where('id', '=', open.body.id).execute();
        for (const token of [ben.session, key]) assert.deepEqual(await bodies(token), ['closed ping @keep-ben', 'open ping @keep-ben'], 'served as kept');
        if (second !== first) assert.deepEqual(await bodies(key, first), ['closed ping @keep-ben', 'changed behind its back'], 'the first node read its own');

        // Removed from the invite Space, on the first node: the second never serves the kept page again.
        assert.equal((await first.request('POST', `/v0/spaces/kept-closed/members/${ben.handle}/remove`, { token: owner.session })).status, 200);
        // The node that wrote the removal serves the key's next request afresh, before any announcement could arrive.
        assert.deepEqual(await bodies(key, first), ['changed behind its back'], 'the writing node forgot at once');
        await forgotten(second, key);
        for (const token of [ben.session, key]) assert.deepEqual(await bodies(token), ['changed behind its back']);

        // A role that lets him read the invite Space again: host of it, assigned with the steward key.
        const assigned = await first.request('POST', '/v0/role-assignments', { token: STEWARD_KEY, body: { member: ben.handle, role: 'host', space: 'kept-closed' } });
        assert.equal(assigned.status, 201);
        await forgotten(second, key);
        for (const token of [ben.session, key]) assert.deepEqual(await bodies(token), ['closed ping @keep-ben', 'changed behind its back']);
      });
    });
  });
}
