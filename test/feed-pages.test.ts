import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ContractPage } from './support/events.js';
import { backends, startServer, type Person, type TestServer } from './support/server.js';

/**
 * Conditional feed reads and kept pages (docs/events.md, "Kept pages"): every
 * feed page carries an ETag, `If-None-Match` with a current one gets 304 and no
 * body, and a page this node kept is only ever served to a reader for whom it
 * is what a fresh read would answer.
 */
for (const backend of backends()) {
  describe(`Feed pages: ETag, If-None-Match and kept pages (${backend})`, () => {
    let server: TestServer;
    let owner: Person;
    let ann: Person;
    let ben: Person;

    before(async () => {
      server = await startServer(backend);
      owner = await server.human('page-owner', { role: 'owner' });
      ann = await server.human('page-ann');
      ben = await server.human('page-ben');
      for (const [slug, join_policy] of [
        ['pages', 'open'],
        ['closed-pages', 'invite'],
      ] as const) {
        assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug, name: slug, join_policy } })).status, 201);
        assert.equal((await server.request('POST', `/v0/spaces/${slug}/approve`, { token: owner.session })).status, 200);
      }
      for (const who of [ann, ben]) assert.equal((await server.request('POST', '/v0/spaces/pages/join', { token: who.session })).status, 200);
    });
    after(() => server.stop());

    const get = (path: string, opts: { token?: string; etag?: string } = {}) =>
      server.request('GET', path, { ...(opts.token ? { token: opts.token } : {}), headers: opts.etag ? { 'if-none-match': opts.etag } : {} });
    const post = (who: Person, body: string) =>
      server.request('POST', '/v0/spaces/pages/channels/general/messages', { token: who.session, body: { body } });

    it('answers 304 with no body while the page is current, and the new page once an event of the feed commits', async () => {
      const first = await get('/v0/spaces/pages/events?since=0&limit=500');
      assert.equal(first.status, 200);
      const etag = first.headers.get('etag')!;
      assert.match(etag, /^W\/"[A-Za-z0-9_-]+"$/);
      assert.equal(first.headers.get('cache-control'), 'private, no-cache');

      const again = await get('/v0/spaces/pages/events?since=0&limit=500', { etag });
      assert.equal(again.status, 304);
      assert.equal(again.body, undefined);
      assert.equal(again.headers.get('etag'), etag);
      // A list of tags, strong or weak, matches if any one does; `*` always does.
      assert.equal((await get('/v0/spaces/pages/events?since=0&limit=500', { etag: `W/"other", ${etag.slice(2)}` })).status, 304);
      assert.equal((await get('/v0/spaces/pages/events?since=0&limit=500', { etag: '*' })).status, 304);
      assert.equal((await get('/v0/spaces/pages/events?since=0&limit=500', { etag: 'W/"other"' })).status, 200);

      assert.equal((await post(ann, 'a new line')).status, 201);
      const changed = await get('/v0/spaces/pages/events?since=0&limit=500', { etag });
      assert.equal(changed.status, 200);
      assert.notEqual(changed.headers.get('etag'), etag);
      assert.equal((changed.body as ContractPage).events.at(-1)!.payload.body, 'a new line');
      assert.deepEqual(changed.body.events.slice(0, -1), first.body.events);
    });

    it('revalidates an empty tail poll: 304 while nothing new, the page with the new event after one commits', async () => {
      const head = (await get('/v0/spaces/pages/events?since=0&limit=500')).body as ContractPage;
      const tail = `/v0/spaces/pages/events?since=${head.cursor}&limit=100`;
      const empty = await get(tail);
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body, { events: [], cursor: head.cursor, protocol: head.protocol });
      const etag = empty.headers.get('etag')!;
      assert.match(etag, /^W\/"[A-Za-z0-9_-]+"$/);
      assert.equal((await get(tail, { etag })).status, 304);
      // The empty page of another position is another representation.
      assert.notEqual((await get(`/v0/spaces/pages/events?since=${head.cursor - 1}&limit=100`)).headers.get('etag'), etag);

      assert.equal((await post(ben, 'ends the quiet')).status, 201);
      const news = await get(tail, { etag });
      assert.equal(news.status, 200);
      assert.equal((news.body as ContractPage).events[0]!.payload.body, 'ends the quiet');
      assert.notEqual(news.headers.get('etag'), etag);
    });

    it('keeps a full page current through later events: the same tag, and the same bytes', async () => {
      const full = await get('/v0/spaces/pages/events?since=0&limit=2');
      assert.equal(full.body.events.length, 2);
      assert.equal((await post(ben, 'after the full page')).status, 201);
      const later = await get('/v0/spaces/pages/events?since=0&limit=2', { etag: full.headers.get('etag')! });
      assert.equal(later.status, 304);
      const reread = await get('/v0/spaces/pages/events?since=0&limit=2');
      assert.deepEqual(reread.body, full.body);
    });

    it('never hands one reader a page kept for another: direct messages stay with their audience', async () => {
      const dm = await server.request('POST', '/v0/spaces/pages/direct-messages', { token: ann.session, body: { to: 'page-ben', body: 'just for ben' } });
      assert.equal(dm.status, 201, JSON.stringify(dm.body));
      const path = '/v0/spaces/pages/events?since=0&limit=500';
      const sees = (page: ContractPage) => page.events.some((e) => e.payload.body === 'just for ben');
      // Each reader twice: the second read may come from what this node kept.
      for (let round = 0; round < 2; round++) {
        assert.equal(sees((await get(path, { token: ben.session })).body), true, 'ben, the recipient');
        assert.equal(sees((await get(path, { token: ann.session })).body), true, 'ann, the sender');
        assert.equal(sees((await get(path, { token: owner.session })).body), false, 'the owner, not in the conversation');
        assert.equal(sees((await get(path)).body), false, 'an anonymous reader');
      }
      const anonymous = await get(path);
      const bens = await get(path, { token: ben.session });
      assert.notEqual(anonymous.headers.get('etag'), bens.headers.get('etag'));
      // Ben's tag is not current for an anonymous reader, whose page differs.
      assert.equal((await get(path, { etag: bens.headers.get('etag')! })).status, 200);
    });

    it('finds a Space proposed after a read of its feed was refused: a missing Space is never kept', async () => {
      assert.equal((await get('/v0/spaces/later-pages/events')).status, 404);
      assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'later-pages', name: 'Later' } })).status, 201);
      const page = await get('/v0/spaces/later-pages/events');
      assert.equal(page.status, 200);
      assert.deepEqual(
        (page.body as ContractPage).events.map((e) => e.type),
        ['space_proposed'],
      );
    });

    it('checks access before answering 304: a removed member is refused, whatever tag they hold', async () => {
      assert.equal((await server.request('POST', '/v0/spaces/closed-pages/invitations', { token: owner.session, body: { member: 'page-ann' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/closed-pages/join', { token: ann.session })).status, 200);
      const page = await get('/v0/spaces/closed-pages/events?since=0', { token: ann.session });
      assert.equal(page.status, 200);
      assert.equal((await get('/v0/spaces/closed-pages/events?since=0', { token: ann.session, etag: page.headers.get('etag')! })).status, 304);
      assert.equal((await server.request('POST', '/v0/spaces/closed-pages/members/page-ann/remove', { token: owner.session })).status, 200);
      const refused = await get('/v0/spaces/closed-pages/events?since=0', { token: ann.session, etag: page.headers.get('etag')! });
      assert.equal(refused.status, 403);
    });

    it('tags inbox pages too, and an inbox page follows access at once rather than a kept copy', async () => {
      assert.equal((await server.request('POST', '/v0/spaces/closed-pages/invitations', { token: owner.session, body: { member: 'page-ben' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/closed-pages/join', { token: ben.session })).status, 200);
      const ping = await server.request('POST', '/v0/spaces/closed-pages/channels/general/messages', { token: owner.session, body: { body: 'ping @page-ben' } });
      assert.equal(ping.status, 201);
      const inbox = await get('/v0/me/inbox-events?since=0', { token: ben.session });
      assert.equal(inbox.status, 200);
      assert.ok((inbox.body as ContractPage).events.some((e) => e.payload.body === 'ping @page-ben'));
      const etag = inbox.headers.get('etag')!;
      assert.equal((await get('/v0/me/inbox-events?since=0', { token: ben.session, etag })).status, 304);
      // Removed from the invite Space: its mentions are hidden at once, so the tag ben holds is no longer current.
      assert.equal((await server.request('POST', '/v0/spaces/closed-pages/members/page-ben/remove', { token: owner.session })).status, 200);
      const later = await get('/v0/me/inbox-events?since=0', { token: ben.session, etag });
      assert.equal(later.status, 200);
      assert.equal((later.body as ContractPage).events.some((e) => e.payload.body === 'ping @page-ben'), false);
    });

    it('answers the newest events with `newest`, and a cursor to follow on from, without reading the feed from its start', async () => {
      for (const line of ['one', 'two', 'three']) assert.equal((await post(ann, `newest ${line}`)).status, 201);
      // A direct message between two others is in the Space feed only for its audience.
      assert.equal((await server.request('POST', '/v0/spaces/pages/direct-messages', { token: ann.session, body: { to: 'page-ben', body: 'newest private' } })).status, 201);

      const all = (await get('/v0/spaces/pages/events?since=0&limit=500', { token: owner.session })).body as ContractPage;
      const newest = await get('/v0/spaces/pages/events?newest=2', { token: owner.session });
      assert.equal(newest.status, 200);
      const page = newest.body as ContractPage;
      // The owner is not in the direct message's audience: the two newest they may read, oldest first.
      assert.deepEqual(
        page.events.map((e) => e.payload.body),
        ['newest two', 'newest three'],
      );
      assert.deepEqual(page.events, all.events.slice(-2));
      // The cursor is the newest on the host, past the hidden direct message: nothing below it is unread.
      const head = Math.max(...((await get('/v0/spaces/pages/events?since=0&limit=500', { token: ben.session })).body as ContractPage).events.map((e) => e.cursor));
      assert.equal(page.cursor, head);
      assert.ok(page.cursor > page.events[1]!.cursor);

      // Further back, page by page: the newest before the oldest event held, the cursor unchanged.
      const back = (await get(`/v0/spaces/pages/events?newest=2&before=${page.events[0]!.cursor}`, { token: owner.session })).body as ContractPage;
      assert.deepEqual(back.events, all.events.slice(-4, -2));
      assert.equal(back.cursor, head);
      const start = (await get(`/v0/spaces/pages/events?newest=500&before=${all.events[1]!.cursor}`, { token: owner.session })).body as ContractPage;
      assert.deepEqual(start.events, all.events.slice(0, 1));
      // Before a cursor beyond the head is as of the head: nothing numbered meanwhile slips in.
      const beyond = (await get(`/v0/spaces/pages/events?newest=2&before=${head + 1000}`, { token: owner.session })).body as ContractPage;
      assert.deepEqual(beyond.events, page.events);

      // Following on from it yields exactly what comes next.
      assert.deepEqual(((await get(`/v0/spaces/pages/events?since=${page.cursor}`, { token: owner.session })).body as ContractPage).events, []);
      assert.equal((await post(ben, 'newest four')).status, 201);
      const next = (await get(`/v0/spaces/pages/events?since=${page.cursor}`, { token: owner.session })).body as ContractPage;
      assert.deepEqual(
        next.events.map((e) => e.payload.body),
        ['newest four'],
      );

      // The audience sees its direct message among the newest; the inbox reads its newest the same way.
      assert.deepEqual(
        ((await get('/v0/spaces/pages/events?newest=2', { token: ben.session })).body as ContractPage).events.map((e) => e.payload.body),
        ['newest private', 'newest four'],
      );
      const inbox = (await get('/v0/me/inbox-events?newest=1', { token: ben.session })).body as ContractPage;
      assert.deepEqual(
        inbox.events.map((e) => e.payload.body),
        ['newest private'],
      );
      const olderInbox = (await get(`/v0/me/inbox-events?newest=500&before=${inbox.events[0]!.cursor}`, { token: ben.session })).body as ContractPage;
      const wholeInbox = (await get('/v0/me/inbox-events?since=0&limit=500', { token: ben.session })).body as ContractPage;
      assert.deepEqual(olderInbox.events, wholeInbox.events.filter((e) => e.cursor < inbox.events[0]!.cursor));
      assert.ok(olderInbox.events.length > 0);

      for (const query of ['newest=2&since=1', 'newest=2&wait=1', 'newest=0', 'newest=501', 'before=3', 'since=1&before=3', 'newest=2&before=0']) {
        const refused = await get(`/v0/spaces/pages/events?${query}`, { token: owner.session });
        assert.equal(refused.status, 422, query);
      }
    });
  });
}
