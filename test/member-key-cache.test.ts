import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { keyResolutionWatcher } from '../src/identity/key-resolution-writes.js';
import { MemberKeyCache, KEPT_FOR_MS, type CredentialChanges, type KeyResolution } from '../src/identity/member-key-cache.js';
import { hashSecret } from '../src/shared/secrets.js';
import { seedAgent, seedMemberKey, setMemberStatus } from './support/seed.js';
import { grantTokens, postForm } from './support/oauth.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

const resolution = (): KeyResolution => ({
  member: {
    handle: 'ada',
    type: 'human',
    display_name: 'Ada',
    operator: null,
    operator_confirmed: 0,
    capabilities: '[]',
    status: 'active',
    email: null,
    email_verified: 0,
    access_version: 0,
    created_ts: '2026-01-01T00:00:00.000Z',
    updated_ts: '2026-01-01T00:00:00.000Z',
  },
  operatorStatus: null,
  keyId: 'key-1',
  keyHash: 'hash-1',
  lastUsedTs: null,
});

/**
 * Member-key resolutions a node keeps (docs/identity.md, "Keeping key
 * resolutions"). On PostgreSQL a second node keeps what the first request
 * resolved, and forgets it when a key is revoked or a member suspended on the
 * other node: the test waits for that node to hear the change (never for
 * time), then shows the key refused there. SQLite is one node: it keeps
 * resolutions too, and reads the database's count of changes on every keyed
 * request, so the very next request after any change looks the key up again.
 */
for (const backend of backends()) {
  describe(`member-key resolutions kept per node (${backend})`, () => {
    let first: TestServer;
    /** Another node of the same database on PostgreSQL; the same node on SQLite. */
    let second: TestServer;

    before(async () => {
      first = await startServer(backend);
      // Nodes of one deployment share its base URL, which names the resource an OAuth token works at.
      second = backend === 'postgres' ? await startServer(backend, { shareWith: first, env: { ATRIUM_BASE_URL: first.url } }) : first;
    });
    after(async () => {
      if (second !== first) await second.stop();
      await first.stop();
    });

    /**
     * Resolves once `server` keeps nothing for `key`, checked now and as each
     * change is heard. Called after the write committed: from then on the
     * node must look the key up again, and the database has the write.
     */
    const forgotten = (server: TestServer, key: string): Promise<void> => {
      // SQLite: nothing to hear; the next request reads the count the change moved.
      if (backend === 'sqlite') return Promise.resolve();
      const gone = () => server.app.ctx.memberKeys.get(hashSecret(key)) === undefined;
      if (gone()) return Promise.resolve();
      return new Promise((resolve) => server.app.ctx.memberKeys.changes.onChange(() => gone() && resolve()));
    };

    // A node that never hears the change would wait forever: the bound turns that into a failure.
    const HEARD_WITHIN = { timeout: 60_000 };

    it('keeps a resolution, and refuses a key revoked on another node', HEARD_WITHIN, async () => {
      const ada = await first.human('ada');
      const key = await seedMemberKey(first, 'ada');
      assert.equal((await second.request('GET', '/v0/me', { token: key })).status, 200);
      assert.equal(second.app.ctx.memberKeys.get(hashSecret(key))?.member.handle, 'ada');

      const credentials = await first.request('GET', '/v0/credentials', { token: ada.session });
      const id = (credentials.body.credentials as Array<{ id: string }>)[0]!.id;
      assert.equal((await first.request('POST', `/v0/credentials/${id}/revoke`, { token: ada.session })).status, 200);
      await forgotten(second, key);
      const refused = await second.request('GET', '/v0/me', { token: key });
      assert.equal(refused.status, 401);
    });

    it('keeps an OAuth access token\'s resolution, and refuses it once its grant is revoked on another node', HEARD_WITHIN, async () => {
      const gil = await first.human('gil');
      const tokens = await grantTokens(first, gil.session, { acting_member: 'gil', resource: 'rest' });
      assert.equal((await second.request('GET', '/v0/me', { token: tokens.access_token })).status, 200);
      assert.equal(second.app.ctx.memberKeys.get(hashSecret(tokens.access_token))?.member.handle, 'gil');
      const grant = ((await first.request('GET', '/v0/oauth-grants', { token: gil.session })).body.grants as Array<{ id: string }>)[0]!;
      assert.equal((await first.request('POST', `/v0/oauth-grants/${grant.id}/revoke`, { token: gil.session, body: {} })).status, 200);
      assert.equal((await first.request('GET', '/v0/me', { token: tokens.access_token })).status, 401, 'the revoking node refuses at once');
      await forgotten(second, tokens.access_token);
      assert.equal((await second.request('GET', '/v0/me', { token: tokens.access_token })).status, 401);
    });

    it('refuses an access token revoked by RFC 7009 on another node', HEARD_WITHIN, async () => {
      const hal = await first.human('hal');
      const tokens = await grantTokens(first, hal.session, { acting_member: 'hal', resource: 'rest' });
      assert.equal((await second.request('GET', '/v0/me', { token: tokens.access_token })).status, 200);
      assert.equal((await postForm(first, '/oauth/revoke', { token: tokens.access_token })).status, 200);
      await forgotten(second, tokens.access_token);
      assert.equal((await second.request('GET', '/v0/me', { token: tokens.access_token })).status, 401);
    });

    it('keeps a session\'s resolution, and refuses the session once signed out: at once on that node, on another once heard', HEARD_WITHIN, async () => {
      const sue = await first.human('sue');
      for (const server of new Set([first, second])) {
        assert.equal((await server.request('GET', '/v0/me', { token: sue.session })).status, 200);
        assert.equal(server.app.ctx.memberKeys.get(hashSecret(sue.session))?.keyHash, hashSecret(sue.session), 'the resolution is kept');
      }
      assert.equal((await first.request('POST', '/v0/sign-out', { token: sue.session })).status, 204);
      assertError(await first.request('GET', '/v0/me', { token: sue.session }), 'session_expired');
      await forgotten(second, sue.session);
      assertError(await second.request('GET', '/v0/me', { token: sue.session }), 'session_expired');
    });

    it('refuses a key from the next request on, on the node that revoked it', async () => {
      const bea = await first.human('bea');
      const key = await seedMemberKey(first, 'bea');
      assert.equal((await first.request('GET', '/v0/me', { token: key })).status, 200);
      const id = ((await first.request('GET', '/v0/credentials', { token: bea.session })).body.credentials as Array<{ id: string }>)[0]!.id;
      assert.equal((await first.request('POST', `/v0/credentials/${id}/revoke`, { token: bea.session })).status, 200);
      assert.equal((await first.request('GET', '/v0/me', { token: key })).status, 401);
    });

    it('refuses an agent on another node once its operator is suspended, whoever wrote the change', HEARD_WITHIN, async () => {
      await first.human('otto');
      const agent = await seedAgent(first, 'otto-bot', 'otto', 'active');
      assert.equal((await second.request('GET', '/v0/me', { token: agent.key })).status, 200);
      assert.equal(second.app.ctx.memberKeys.get(hashSecret(agent.key))?.operatorStatus, 'active');
      // A bare UPDATE, as no service writes it: the database announces it all the same.
      await setMemberStatus(first, 'otto', 'suspended');
      await forgotten(second, agent.key);
      const refused = await second.request('GET', '/v0/me', { token: agent.key });
      assertError(refused, 'member_suspended');
    });

    it('forgets what this node writes as it writes it, before any announcement could arrive', async () => {
      // A cache that hears nothing at all: only the node's own writes can clear it.
      const cache = new MemberKeyCache({ live: true, onChange: () => undefined });
      const { db } = first.app.ctx;
      db.watchWrites(keyResolutionWatcher(() => cache.forget()));
      const keep = () => cache.put('hash-1', resolution(), cache.generation);
      const kept = () => cache.get('hash-1') !== undefined;
      await first.human('kit');
      keep();

      // Neither a new key nor a key's last-use hint changes what any key resolved to.
      await seedMemberKey(first, 'kit');
      await db.kysely.updateTable('member_keys').set({ last_used_ts: new Date().toISOString() }).where('member_handle', '=', 'kit').execute();
      assert.ok(kept(), 'an insert or a last-use refresh leaves resolutions kept');

      await setMemberStatus(first, 'kit', 'suspended');
      assert.ok(!kept(), 'a bare update outside a transaction');

      // Looked up after the UPDATE ran but before COMMIT, a lookup may have read the old row: not kept past COMMIT.
      keep();
      await db.transaction(async (tx) => {
        await tx.db.updateTable('members').set({ status: 'active' }).where('handle', '=', 'kit').execute();
        keep();
        assert.ok(kept());
      });
      assert.ok(!kept(), 'a transaction, once committed');

      keep();
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.db.deleteFrom('member_keys').where('member_handle', '=', 'kit').execute();
          keep();
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      assert.ok(!kept(), 'a transaction rolled back: forgetting more than needed is harmless');

      // Admissions and Owner/Host assignments move the member row's access version (migration 0032), which a resolution carries.
      const accessVersion = async () =>
        (await db.kysely.selectFrom('members').select('access_version').where('handle', '=', 'kit').executeTakeFirstOrThrow()).access_version;
      const ts = new Date().toISOString();
      const writes = [
        () =>
          db.kysely
            .insertInto('role_assignments')
            .values({ id: 'role-kit', member_handle: 'kit', role: 'host', space: null, status: 'active', created_by: null, created_ts: ts, revoked_by: null, revoked_ts: null })
            .execute(),
        () => db.kysely.updateTable('role_assignments').set({ status: 'revoked', revoked_ts: ts }).where('id', '=', 'role-kit').execute(),
        () => db.kysely.deleteFrom('role_assignments').where('id', '=', 'role-kit').execute(),
      ];
      // Signing out updates a session, and a session may be deleted: either forgets what was kept (migration 0033).
      for (const write of [
        () => db.kysely.updateTable('sessions').set({ revoked_ts: ts }).where('member_handle', '=', 'kit').execute(),
        () => db.kysely.deleteFrom('sessions').where('member_handle', '=', 'kit').execute(),
      ]) {
        keep();
        await write();
        assert.ok(!kept(), 'a session signed out or deleted');
      }
      for (const [at, write] of writes.entries()) {
        const was = await accessVersion();
        keep();
        await write();
        assert.ok(!kept(), `role assignment write ${at}`);
        assert.ok((await accessVersion()) > was, `role assignment write ${at} moves the access version`);
      }
    });

    if (backend === 'sqlite') {
      it('refuses a key revoked, or an operator suspended, by another process writing the same file', async () => {
        await first.human('ivy');
        const agent = await seedAgent(first, 'ivy-bot', 'ivy', 'active');
        const key = await seedMemberKey(first, 'ivy');
        for (const token of [key, agent.key]) assert.equal((await first.request('GET', '/v0/me', { token })).status, 200);
        assert.ok(first.app.ctx.memberKeys.get(hashSecret(key)), 'the resolution is kept');

        // What `atrium admin` or the sqlite3 shell would do: its own connection, plain SQL.
        const other = new BetterSqlite3(first.database.url.slice('sqlite:'.length));
        try {
          other.prepare('update member_keys set revoked_ts = ? where key_hash = ?').run(new Date().toISOString(), hashSecret(key));
          assert.equal((await first.request('GET', '/v0/me', { token: key })).status, 401);
          assert.equal((await first.request('GET', '/v0/me', { token: agent.key })).status, 200);
          other.prepare("update members set status = 'suspended' where handle = 'ivy'").run();
          const refused = await first.request('GET', '/v0/me', { token: agent.key });
          assertError(refused, 'member_suspended');
          // A key's last-use refresh is no change to what a resolution carries: it is not counted.
          const counted = () => other.prepare('select changes from credential_changes').pluck().get() as number;
          const before = counted();
          other.prepare('update member_keys set last_used_ts = ? where key_hash = ?').run(new Date().toISOString(), hashSecret(agent.key));
          assert.equal(counted(), before);
        } finally {
          other.close();
        }
      });
    }
  });
}

describe('member-key cache rules', () => {
  const changes = (): CredentialChanges & { live: boolean; fire(): void } => {
    const listeners: Array<() => void> = [];
    return { live: true, onChange: (l) => void listeners.push(l), fire: () => listeners.forEach((l) => l()) };
  };

  it('does not keep an answer looked up before a change was heard', () => {
    const heard = changes();
    const cache = new MemberKeyCache(heard);
    const started = cache.generation;
    heard.fire();
    cache.put('hash-1', resolution(), started);
    assert.equal(cache.get('hash-1'), undefined);
    cache.put('hash-1', resolution(), cache.generation);
    assert.equal(cache.get('hash-1')?.keyId, 'key-1');
  });

  it('keeps nothing while changes cannot be heard, and nothing past its time', () => {
    const heard = changes();
    let now = 0;
    const cache = new MemberKeyCache(heard, () => now);
    cache.put('hash-1', resolution(), cache.generation);
    heard.live = false;
    assert.equal(cache.get('hash-1'), undefined);
    heard.live = true;
    assert.equal(cache.get('hash-1')?.keyId, 'key-1');
    now = KEPT_FOR_MS + 1;
    assert.equal(cache.get('hash-1'), undefined);
  });
});
