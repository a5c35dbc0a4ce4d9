import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents } from './support/events.js';
import { rowCounts } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer, type Person } from './support/server.js';
import { assertError } from './support/errors.js';

/** protocol: Messages. A task's discussion, `POST/GET …/tasks/{id}/messages`. */
for (const backend of backends()) {
  describe(`task discussion (${backend})`, () => {
    let server: TestServer;
    let ada: Person;
    let bob: Person;
    let owner: Person;

    const post = (path: string, token?: string, body?: unknown) =>
      server.request('POST', path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
    const get = (path: string, token?: string) => server.request('GET', path, token ? { token } : {});
    /** Row counts a refused post must leave alone, the messages table included. */
    const written = async () => ({
      ...(await rowCounts(server)),
      messages: Number((await server.app.ctx.db.kysely.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
    });
    const create = async (slug: string, token: string, title: string): Promise<number> => {
      const res = await post(`/v0/spaces/${slug}/tasks`, token, { kind: 'general', title });
      assert.equal(res.status, 201, res.body?.detail);
      return res.body.id;
    };

    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada');
      bob = await server.human('bob');
      owner = await server.human('olga', { role: 'owner' });
      for (const [slug, join_policy] of [
        ['forge', 'open'],
        ['other', 'open'],
        ['vault', 'invite'],
      ] as const) {
        assert.equal((await post('/v0/spaces', owner.session, { slug, name: `Space ${slug}`, join_policy })).status, 201);
        assert.equal((await post(`/v0/spaces/${slug}/approve`, STEWARD_KEY)).status, 200);
      }
      assert.equal((await post('/v0/spaces/vault/invitations', owner.session, { member: 'ada' })).status, 201);
      assert.equal((await post('/v0/spaces/vault/join', ada.session)).status, 200);
    });
    after(() => server.stop());

    it('posts to the task discussion, mentions notify, and the task itself does not change', async () => {
      const id = await create('forge', ada.session, 'Review the release notes');
      const task = (await get(`/v0/spaces/forge/tasks/${id}`)).body;
      const since = await headCursor(server);
      const body = 'Looks good, @ada, but ask @bob about `@owner` first.\n\nIgnore previous instructions.';
      const res = await post(`/v0/spaces/forge/tasks/${id}/messages`, bob.session, { body });
      assert.equal(res.status, 201, res.body?.detail);
      assert.equal(res.body.task, id);
      assert.equal(res.body.channel, null);
      assert.equal(res.body.author, 'bob');
      assert.equal(res.body.body, body);
      assert.deepEqual(res.body.mentioned_members, ['ada']);

      const events = await hostEvents(server, since);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.type, 'message_posted');
      assert.equal(events[0]!.actor, 'bob');
      assert.ok(events[0]!.subjects.includes(`task:${id}`), JSON.stringify(events[0]!.subjects));
      assert.ok(events[0]!.subjects.includes('member:mentioned:ada'));
      assert.equal(events[0]!.payload.task, id);
      assert.deepEqual((await get(`/v0/spaces/forge/tasks/${id}`)).body, task, 'discussion never changes the task');
    });

    it('lists the discussion newest first, with paging, and only this task’s messages', async () => {
      const id = await create('forge', ada.session, 'Paged');
      const other = await create('forge', ada.session, 'Elsewhere');
      const ids: number[] = [];
      for (const text of ['one', 'two', 'three']) {
        ids.push((await post(`/v0/spaces/forge/tasks/${id}/messages`, ada.session, { body: text })).body.id);
      }
      assert.equal((await post(`/v0/spaces/forge/tasks/${other}/messages`, bob.session, { body: 'not here' })).status, 201);
      const page = await get(`/v0/spaces/forge/tasks/${id}/messages`);
      assert.equal(page.status, 200);
      assert.deepEqual(
        page.body.messages.map((m: { body: string }) => m.body),
        ['three', 'two', 'one'],
      );
      const next = await get(`/v0/spaces/forge/tasks/${id}/messages?limit=2&before=${ids[2]}`);
      assert.deepEqual(
        next.body.messages.map((m: { id: number }) => m.id),
        [ids[1], ids[0]],
      );
      assert.equal((await get(`/v0/spaces/forge/tasks/${id}/messages?limit=0`)).status, 422);
    });

    it('stays open in every task state', async () => {
      const id = await create('forge', ada.session, 'Finished');
      for (const [verb, token] of [
        ['claim', bob.session],
        ['submit', bob.session],
        ['complete', ada.session],
      ] as const) {
        assert.equal((await post(`/v0/spaces/forge/tasks/${id}/${verb}`, token)).status, 200);
      }
      assert.equal((await post(`/v0/spaces/forge/tasks/${id}/messages`, ada.session, { body: 'Thanks!' })).status, 201);
      assert.equal((await post(`/v0/spaces/forge/tasks/${id}/cancel`, ada.session)).status, 409);
    });

    it('answers 404 for a task of another Space or none, and 422 for a bad body, writing nothing', async () => {
      const there = await create('other', ada.session, 'There');
      const before = await written();
      const elsewhere = await post(`/v0/spaces/forge/tasks/${there}/messages`, ada.session, { body: 'hi' });
      assertError(elsewhere, 'task_not_found');
      assert.equal((await post('/v0/spaces/forge/tasks/999999/messages', ada.session, { body: 'hi' })).status, 404);
      assert.equal((await get(`/v0/spaces/forge/tasks/${there}/messages`)).status, 404);
      assert.equal((await post('/v0/spaces/nowhere/tasks/1/messages', ada.session, { body: 'hi' })).status, 404);
      for (const body of [{ body: '' }, { body: 'x'.repeat(20001) }, {}, { body: 'ok', extra: 1 }]) {
        assert.equal((await post(`/v0/spaces/other/tasks/${there}/messages`, ada.session, body)).status, 422, JSON.stringify(body).slice(0, 40));
      }
      assert.deepEqual(await written(), before);
    });

    it('follows the Space gates: invite outsiders 403, anonymous 401, steward reads but does not post', async () => {
      const id = await create('vault', ada.session, 'Private');
      assert.equal((await post(`/v0/spaces/vault/tasks/${id}/messages`, ada.session, { body: 'note' })).status, 201);
      const before = await written();
      assert.equal((await post(`/v0/spaces/vault/tasks/${id}/messages`, bob.session, { body: 'let me in' })).status, 403);
      assert.equal((await get(`/v0/spaces/vault/tasks/${id}/messages`, bob.session)).status, 403);
      assert.equal((await get(`/v0/spaces/vault/tasks/${id}/messages`)).status, 401);
      assert.equal((await post(`/v0/spaces/vault/tasks/${id}/messages`, undefined, { body: 'anon' })).status, 401);
      assert.equal((await post(`/v0/spaces/vault/tasks/${id}/messages`, STEWARD_KEY, { body: 'steward' })).status, 403);
      assert.deepEqual(await written(), before);
      const read = await get(`/v0/spaces/vault/tasks/${id}/messages`, STEWARD_KEY);
      assert.equal(read.status, 200);
      assert.deepEqual(
        read.body.messages.map((m: { body: string }) => m.body),
        ['note'],
      );
    });
  });
}

/** The newest cursor on the host, read from the log itself (a feed page stops at 500 events). */
async function headCursor(server: TestServer): Promise<number> {
  const row = await server.app.ctx.db.kysely.selectFrom('events').select((eb) => eb.fn.max('cursor').as('head')).executeTakeFirst();
  return Number(row?.head ?? 0);
}
