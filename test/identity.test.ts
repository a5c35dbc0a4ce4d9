import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintMemberKey } from '../src/identity/member-keys.js';
import { TestClock } from './support/clock.js';
import { outbox, SIGN_IN_CODE as CODE, type Mail } from './support/mail.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';


const origin = (server: TestServer) => new URL(server.url).origin;
const cookieOf = (token: string) => ({ cookie: `atrium_session=${token}` });

async function count(server: TestServer, table: 'members' | 'events' | 'sessions' | 'sign_in_codes'): Promise<number> {
  const row = await server.app.ctx.db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function hostEvents(server: TestServer, type: string) {
  const feed = await server.request('GET', '/v0/events?limit=500', { token: STEWARD_KEY });
  assert.equal(feed.status, 200);
  return (feed.body.events as Array<{ type: string; actor: string | null; payload: Record<string, unknown>; space: string | null }>).filter(
    (e) => e.type === type,
  );
}

for (const backend of backends()) {
  describe(`identity (${backend})`, () => {
    const clock = new TestClock();
    let server: TestServer;
    let mails: () => Promise<Mail[]>;
    let owner: { handle: string; session: string };
    let alice: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend, { clock });
      mails = outbox(server);
      owner = await server.human('olivia', { role: 'owner' });
      alice = await server.human('alice');
    });
    after(() => server.stop());

    /** Adds a human with the steward key, as an operator would. */
    async function addHuman(handle: string) {
      const res = await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body: { handle, email: `${handle}@example.test` } });
      assert.equal(res.status, 201);
      return res.body;
    }

    async function requestCode(email: string): Promise<Mail> {
      const res = await server.request('POST', '/v0/sign-in/email', { body: { email } });
      assert.equal(res.status, 202);
      assert.deepEqual(res.body, { status: 'sent' });
      const sent = await mails();
      assert.equal(sent.length, 1);
      assert.equal(sent[0]!.to, email);
      return sent[0]!;
    }

    const verify = (email: string, code: string, headers?: Record<string, string>) =>
      server.request('POST', '/v0/sign-in/verify', { body: { email, code }, ...(headers ? { headers } : {}) });

    async function signIn(email: string): Promise<string> {
      const mail = await requestCode(email);
      const res = await verify(email, mail.code);
      assert.equal(res.status, 200);
      return res.body.token;
    }

    describe('POST /v0/humans', () => {
      it('lets the steward key add a human, unverified, with the address shown', async () => {
        const res = await server.request('POST', '/v0/humans', {
          token: STEWARD_KEY,
          body: { handle: 'bruno', email: 'Bruno@Example.test', display_name: 'Bruno B.' },
        });
        assert.equal(res.status, 201);
        assert.equal(res.body.id, `${server.app.ctx.config.baseUrl}/v0/members/bruno`);
        assert.equal(res.body.handle, 'bruno');
        assert.equal(res.body.type, 'human');
        assert.equal(res.body.status, 'active');
        assert.equal(res.body.display_name, 'Bruno B.');
        assert.equal(res.body.email, 'bruno@example.test');
        assert.equal(res.body.email_verified, false);
        const events = await hostEvents(server, 'member_registered');
        const registered = events.find((e) => e.payload.handle === 'bruno');
        assert.ok(registered);
        assert.equal(registered.actor, null);
        assert.equal(registered.payload.via, 'steward_key');
      });

      it('lets a signed-in host-wide owner add a human, attributed to the owner', async () => {
        const res = await server.request('POST', '/v0/humans', { token: owner.session, body: { handle: 'carla', email: 'carla@example.test' } });
        assert.equal(res.status, 201);
        assert.equal(res.body.display_name, 'carla');
        const registered = (await hostEvents(server, 'member_registered')).find((e) => e.payload.handle === 'carla');
        assert.equal(registered?.actor, 'olivia');
      });

      it('refuses humans without a host-wide owner role, API keys, and anonymous callers', async () => {
        const host = await server.human('hana', { role: 'host' });
        const body = { handle: 'dora', email: 'dora@example.test' };
        const before = await count(server, 'members');
        assert.equal((await server.request('POST', '/v0/humans', { token: alice.session, body })).status, 403);
        assert.equal((await server.request('POST', '/v0/humans', { token: host.session, body })).status, 403);
        const key = await server.app.ctx.db.transaction((tx) => mintMemberKey(tx, owner.handle, 'client_activation', 'laptop'));
        const byKey = await server.request('POST', '/v0/humans', { token: key.key, body });
        assertError(byKey, 'session_required');
        assert.equal((await server.request('POST', '/v0/humans', { body })).status, 401);
        const wrongSteward = await server.request('POST', '/v0/humans', { token: 'not-the-steward-key', body });
        assert.equal(wrongSteward.status, 403);
        assert.equal(await count(server, 'members'), before);
      });

      it('answers 409 for a taken handle or address (in any case)', async () => {
        await addHuman('erin');
        const sameHandle = await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body: { handle: 'erin', email: 'other@example.test' } });
        assertError(sameHandle, 'handle_taken');
        const sameEmail = await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body: { handle: 'erin-two', email: 'ERIN@example.test' } });
        assertError(sameEmail, 'email_taken');
      });

      it('answers 422 for bad input and writes nothing', async () => {
        const members = await count(server, 'members');
        const events = await count(server, 'events');
        const bad = [
          { handle: 'frank', email: 'frank@example.test', role: 'owner' },
          { handle: 'frank', email: 'not-an-address' },
          { handle: 'Frank_1', email: 'frank@example.test' },
          { handle: 'fr', email: 'frank@example.test' },
          { handle: 'frank', email: 'frank@example.test', display_name: '' },
          { handle: 'frank' },
        ];
        for (const body of bad) {
          const res = await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body });
          assert.equal(res.status, 422, JSON.stringify(body));
          assert.equal(typeof res.body.detail, 'string');
        }
        // The detail names the field refused.
        assert.match(assertError(await server.request('POST', '/v0/humans', { token: STEWARD_KEY, body: bad[0] }), 'validation_failed'), /unknown field "role"/);
        assert.equal((await server.request('POST', '/v0/humans', { token: STEWARD_KEY, rawBody: '{"handle":' })).status, 422);
        assert.equal(await count(server, 'members'), members);
        assert.equal(await count(server, 'events'), events);
      });
    });

    describe('sign-in by e-mail', () => {
      it('mails a code and a link, and the code starts a verified session', async () => {
        await addHuman('gina');
        const mail = await requestCode('gina@example.test');
        assert.match(mail.text, /@gina/);
        assert.equal(mail.link.origin + mail.link.pathname, `${server.app.ctx.config.baseUrl}/sign-in`);
        assert.equal(mail.link.searchParams.get('email'), 'gina@example.test');
        assert.equal(mail.link.searchParams.get('code'), mail.code);
        assert.doesNotMatch(mail.subject, CODE);

        const codes = await server.app.ctx.db.kysely.selectFrom('sign_in_codes').selectAll().where('email', '=', 'gina@example.test').execute();
        assert.equal(codes.length, 1);
        assert.ok(!JSON.stringify(codes).includes(mail.code), 'the code is stored only as a digest');

        const res = await verify('GINA@example.test', mail.code);
        assert.equal(res.status, 200);
        assert.match(res.body.token, /^st_atrium_/);
        assert.equal(res.body.member.handle, 'gina');
        assert.equal(res.body.member.email_verified, true);
        assert.equal(res.body.expires_ts, new Date(clock.now().getTime() + 30 * 24 * 3600 * 1000).toISOString());
        const cookie = res.headers.getSetCookie().find((c) => c.startsWith('atrium_session='));
        assert.ok(cookie);
        assert.ok(cookie.startsWith(`atrium_session=${res.body.token};`));
        assert.match(cookie, /HttpOnly/i);
        assert.match(cookie, /SameSite=Lax/i);
        assert.doesNotMatch(cookie, /Secure/i, 'the test base URL is http');

        const me = await server.request('GET', '/v0/me', { token: res.body.token });
        assert.equal(me.status, 200);
        assert.equal(me.body.handle, 'gina');
        assert.equal(me.body.email, 'gina@example.test');
        assert.equal(me.body.email_verified, true);
      });

      it('answers the token in the body unless the client asks for the cookie alone (session_token)', async () => {
        await addHuman('ivo');
        const sessionCookie = (res: { headers: Headers }) => /^atrium_session=([^;]+);/.exec(res.headers.getSetCookie().find((c) => c.startsWith('atrium_session=')) ?? '')?.[1];

        // Without the field, and with `body`: the documented {token, member, expires_ts}, and the cookie.
        for (const choice of [{}, { session_token: 'body' }]) {
          const mail = await requestCode('ivo@example.test');
          const res = await server.request('POST', '/v0/sign-in/verify', { body: { email: 'ivo@example.test', code: mail.code, ...choice } });
          assert.equal(res.status, 200, JSON.stringify(choice));
          assert.deepEqual(Object.keys(res.body).sort(), ['expires_ts', 'member', 'token']);
          assert.match(res.body.token, /^st_atrium_/);
          assert.equal(sessionCookie(res), res.body.token);
        }

        // `cookie`: the session lives only in the HttpOnly cookie; the answer never carries it.
        const mail = await requestCode('ivo@example.test');
        const res = await server.request('POST', '/v0/sign-in/verify', { body: { email: 'ivo@example.test', code: mail.code, session_token: 'cookie' } });
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), ['expires_ts', 'member']);
        assert.equal(res.body.member.handle, 'ivo');
        assert.equal(res.body.expires_ts, new Date(clock.now().getTime() + 30 * 24 * 3600 * 1000).toISOString());
        const token = sessionCookie(res);
        assert.match(token ?? '', /^st_atrium_/);
        assert.ok(!JSON.stringify(res.body).includes(token!), 'the token is not in the answer');
        const me = await server.request('GET', '/v0/me', { headers: cookieOf(token!) });
        assert.equal(me.status, 200);
        assert.equal(me.body.handle, 'ivo');

        // Any other choice is a 422 naming the field, before the code is looked at: it stays usable.
        const next = await requestCode('ivo@example.test');
        const sessions = await count(server, 'sessions');
        const refused = await server.request('POST', '/v0/sign-in/verify', { body: { email: 'ivo@example.test', code: next.code, session_token: 'header' } });
        // The detail names the field and the choices it takes.
        assert.match(assertError(refused, 'validation_failed'), /session_token must be one of: body, cookie/);
        assert.equal(refused.headers.getSetCookie().length, 0);
        assert.equal(await count(server, 'sessions'), sessions);
        assert.equal((await verify('ivo@example.test', next.code)).status, 200);
      });

      it('answers an unknown or suspended address exactly like a known one and mails nothing', async () => {
        await addHuman('hugo');
        await server.app.ctx.db.kysely.updateTable('members').set({ status: 'suspended' }).where('handle', '=', 'hugo').execute();
        for (const email of ['nobody@example.test', 'hugo@example.test']) {
          const res = await server.request('POST', '/v0/sign-in/email', { body: { email } });
          assert.equal(res.status, 202);
          assert.deepEqual(res.body, { status: 'sent' });
        }
        assert.deepEqual(await mails(), []);
        assert.equal((await verify('nobody@example.test', 'BCDF-GHJK')).status, 401);
      });

      it('answers 422 for a malformed address or body', async () => {
        const codes = await count(server, 'sign_in_codes');
        assert.equal((await server.request('POST', '/v0/sign-in/email', { body: { email: 'nope' } })).status, 422);
        assert.equal((await server.request('POST', '/v0/sign-in/email', { body: { email: 'alice@example.test', handle: 'alice' } })).status, 422);
        assert.equal((await server.request('POST', '/v0/sign-in/verify', { body: { email: 'alice@example.test' } })).status, 422);
        assert.equal((await server.request('POST', '/v0/sign-in/verify', { body: { email: 'alice@example.test', code: '' } })).status, 422);
        assert.equal(await count(server, 'sign_in_codes'), codes);
        assert.deepEqual(await mails(), []);
      });

      it('accepts a code typed in lower case without the dash, once only', async () => {
        await addHuman('ines');
        const mail = await requestCode('ines@example.test');
        const typed = mail.code.toLowerCase().replace('-', ' ');
        assert.equal((await verify('ines@example.test', typed)).status, 200);
        const again = await verify('ines@example.test', mail.code);
        assertError(again, 'sign_in_code_invalid');
      });

      it('lets a code live 10 minutes and no longer', async () => {
        await addHuman('jonas');
        const early = await requestCode('jonas@example.test');
        clock.advance(10 * 60 * 1000 - 1);
        assert.equal((await verify('jonas@example.test', early.code)).status, 200);

        const late = await requestCode('jonas@example.test');
        clock.advance(10 * 60 * 1000 + 1);
        assert.equal((await verify('jonas@example.test', late.code)).status, 401);
      });

      it('burns a code after 5 wrong tries, counting every try', async () => {
        await addHuman('kim');
        const first = await requestCode('kim@example.test');
        const wrong = first.code === 'BCDF-GHJK' ? 'BCDF-GHJM' : 'BCDF-GHJK';
        for (let i = 0; i < 4; i++) assert.equal((await verify('kim@example.test', wrong)).status, 401);
        assert.equal((await verify('kim@example.test', first.code)).status, 200, 'four wrong tries leave the code usable');

        const second = await requestCode('kim@example.test');
        for (let i = 0; i < 5; i++) assert.equal((await verify('kim@example.test', wrong)).status, 401);
        const sixth = await verify('kim@example.test', second.code);
        assert.equal(sixth.status, 401, 'the fifth wrong try burned the code');
      });

      it('honours only the newest code', async () => {
        await addHuman('lena');
        const older = await requestCode('lena@example.test');
        const newer = await requestCode('lena@example.test');
        assert.notEqual(older.code, newer.code);
        assert.equal((await verify('lena@example.test', older.code)).status, 401);
        assert.equal((await verify('lena@example.test', newer.code)).status, 200);
      });

      it('sends at most five codes per address in fifteen minutes, then says when the next may be asked for, alike for addresses without an account', async () => {
        await addHuman('flo');
        await requestCode('flo@example.test');
        clock.advance(5 * 60 * 1000);
        for (let i = 0; i < 4; i++) await requestCode('flo@example.test');
        const sixth = await server.request('POST', '/v0/sign-in/email', { body: { email: 'flo@example.test' } });
        assert.equal(sixth.status, 429);
        assert.equal(sixth.headers.get('atrium-error'), 'rate_limited');
        assert.equal(sixth.headers.get('retry-after'), String(10 * 60), 'the first code leaves the window in ten minutes');
        assert.match(sixth.body.detail, /no code was sent/);
        assert.equal((await mails()).length, 0, 'no sixth mail within the window');
        // An address with no account is answered the same, so the refusal tells nothing of accounts.
        for (let i = 0; i < 5; i++) assert.equal((await server.request('POST', '/v0/sign-in/email', { body: { email: 'nobody-here@example.test' } })).status, 202);
        const nobody = await server.request('POST', '/v0/sign-in/email', { body: { email: 'nobody-here@example.test' } });
        assert.equal(nobody.status, 429);
        assert.equal(nobody.headers.get('retry-after'), String(15 * 60));
        clock.advance(10 * 60 * 1000);
        const later = await requestCode('flo@example.test');
        assert.equal((await verify('flo@example.test', later.code)).status, 200);
      });

      it('refuses a suspended member a session even with a valid code', async () => {
        await addHuman('milo');
        const mail = await requestCode('milo@example.test');
        await server.app.ctx.db.kysely.updateTable('members').set({ status: 'suspended' }).where('handle', '=', 'milo').execute();
        const sessions = await count(server, 'sessions');
        const res = await verify('milo@example.test', mail.code);
        assert.equal(res.status, 403);
        assert.equal(res.headers.getSetCookie().length, 0);
        assert.equal(await count(server, 'sessions'), sessions);
      });

      it('lets a browser holding a stale session cookie sign in again', async () => {
        await addHuman('nora');
        const stale = await signIn('nora@example.test');
        assert.equal((await server.request('POST', '/v0/sign-out', { token: stale })).status, 204);
        const headers = { ...cookieOf(stale), origin: origin(server) };
        const asked = await server.request('POST', '/v0/sign-in/email', { body: { email: 'nora@example.test' }, headers });
        assert.equal(asked.status, 202);
        const [mail] = await mails();
        assert.equal((await verify('nora@example.test', mail!.code, headers)).status, 200);
      });
    });

    describe('sessions', () => {
      it('accepts the session cookie for reads and same-origin writes only (CSRF)', async () => {
        await addHuman('oscar');
        const token = await signIn('oscar@example.test');
        const read = await server.request('GET', '/v0/me', { headers: cookieOf(token) });
        assert.equal(read.status, 200);
        assert.equal(read.body.handle, 'oscar');

        const noOrigin = await server.request('POST', '/v0/sign-out', { headers: cookieOf(token) });
        assert.equal(noOrigin.status, 403);
        const foreign = await server.request('POST', '/v0/sign-out', { headers: { ...cookieOf(token), origin: 'https://evil.example' } });
        assert.equal(foreign.status, 403);
        assert.equal((await server.request('GET', '/v0/me', { token })).status, 200, 'the refused writes did nothing');

        const same = await server.request('POST', '/v0/sign-out', { headers: { ...cookieOf(token), origin: origin(server) } });
        assert.equal(same.status, 204);
        const cleared = same.headers.getSetCookie().find((c) => c.startsWith('atrium_session='));
        assert.ok(cleared);
        assert.match(cleared, /Expires=Thu, 01 Jan 1970/i);
        assert.equal((await server.request('GET', '/v0/me', { headers: cookieOf(token) })).status, 401);
      });

      it('signs out a bearer session, which is then refused', async () => {
        const bea = await server.human('bea');
        const res = await server.request('POST', '/v0/sign-out', { token: bea.session });
        assert.equal(res.status, 204);
        assert.equal(res.body, undefined);
        assert.equal((await server.request('GET', '/v0/me', { token: bea.session })).status, 401);
        assert.equal((await server.request('POST', '/v0/sign-out', { token: bea.session })).status, 401);
      });

      it('refuses sign-out with an API key or the steward key', async () => {
        const key = await server.app.ctx.db.transaction((tx) => mintMemberKey(tx, alice.handle, 'client_activation', 'cli'));
        assert.equal((await server.request('POST', '/v0/sign-out', { token: key.key })).status, 403);
        assert.equal((await server.request('POST', '/v0/sign-out', { token: STEWARD_KEY })).status, 403);
        assert.equal((await server.request('POST', '/v0/sign-out')).status, 401);
      });
    });

    describe('GET /v0/me', () => {
      it('answers the caller with private fields, by key or by session', async () => {
        const key = await server.app.ctx.db.transaction((tx) => mintMemberKey(tx, alice.handle, 'client_activation', 'cli'));
        for (const token of [key.key, alice.session]) {
          const me = await server.request('GET', '/v0/me', { token });
          assert.equal(me.status, 200);
          assert.equal(me.body.handle, alice.handle);
          assert.equal(me.body.email, `${alice.handle}@example.test`);
          assert.equal(me.body.email_verified, true);
        }
      });

      it('refuses anonymous callers, unknown keys and the steward key', async () => {
        assert.equal((await server.request('GET', '/v0/me')).status, 401);
        assert.equal((await server.request('GET', '/v0/me', { token: 'sk_atrium_unknown' })).status, 401);
        assert.equal((await server.request('GET', '/v0/me', { token: STEWARD_KEY })).status, 403);
      });
    });

    describe('API credentials', () => {
      it('lists the caller’s client credentials newest first, never the keys', async () => {
        const pat = await server.human('pat');
        const mint = async (handle: string, name: string, origin: 'client_activation' | 'agent_registration' = 'client_activation') => {
          clock.advance(1000);
          return server.app.ctx.db.transaction((tx) => mintMemberKey(tx, handle, origin, name));
        };
        const laptop = await mint('pat', 'laptop');
        const phone = await mint('pat', 'phone');
        await mint('pat', 'registration', 'agent_registration');
        await mint(alice.handle, 'not pat’s');

        const res = await server.request('GET', '/v0/credentials', { token: pat.session });
        assert.equal(res.status, 200);
        assert.deepEqual(
          res.body.credentials.map((c: { id: string }) => c.id),
          [phone.id, laptop.id],
        );
        const [first] = res.body.credentials;
        assert.equal(first.client_name, 'phone');
        assert.equal(first.key_prefix, phone.key_prefix);
        assert.ok(phone.key.startsWith(first.key_prefix));
        assert.equal(first.last_used_ts, null);
        assert.equal(first.revoked_ts, null);
        assert.ok(!JSON.stringify(res.body).includes(phone.key));

        assert.equal((await server.request('GET', '/v0/me', { token: phone.key })).status, 200);
        const used = await server.request('GET', '/v0/credentials', { token: pat.session });
        assert.equal(used.body.credentials[0].last_used_ts, clock.now().toISOString());
      });

      it('revokes a credential at once, idempotently, with one event', async () => {
        const quinn = await server.human('quinn');
        const key = await server.app.ctx.db.transaction((tx) => mintMemberKey(tx, 'quinn', 'client_activation', 'editor'));
        assert.equal((await server.request('GET', '/v0/me', { token: key.key })).status, 200);

        clock.advance(5000);
        const revoked = await server.request('POST', `/v0/credentials/${key.id}/revoke`, { token: quinn.session });
        assert.equal(revoked.status, 200);
        assert.equal(revoked.body.id, key.id);
        assert.equal(revoked.body.revoked_ts, clock.now().toISOString());
        assert.equal((await server.request('GET', '/v0/me', { token: key.key })).status, 401);

        clock.advance(5000);
        const again = await server.request('POST', `/v0/credentials/${key.id}/revoke`, { token: quinn.session });
        assert.equal(again.status, 200);
        assert.equal(again.body.revoked_ts, revoked.body.revoked_ts);

        const listed = await server.request('GET', '/v0/credentials', { token: quinn.session });
        assert.equal(listed.body.credentials[0].revoked_ts, revoked.body.revoked_ts);

        const events = (await hostEvents(server, 'client_credential_revoked')).filter((e) => e.payload.id === key.id);
        assert.equal(events.length, 1);
        assert.equal(events[0]!.actor, 'quinn');
        assert.equal(events[0]!.space, null);
        assert.deepEqual(events[0]!.payload, { id: key.id, member: 'quinn' });
      });

      it('answers 404 for someone else’s or an unknown credential, and leaves it working', async () => {
        const rita = await server.human('rita');
        const others = await server.app.ctx.db.transaction((tx) => mintMemberKey(tx, alice.handle, 'client_activation', 'alice cli'));
        const res = await server.request('POST', `/v0/credentials/${others.id}/revoke`, { token: rita.session });
        assert.equal(res.status, 404);
        assert.equal((await server.request('POST', `/v0/credentials/cred_${'a'.repeat(26)}/revoke`, { token: rita.session })).status, 404);
        assert.equal((await server.request('GET', '/v0/me', { token: others.key })).status, 200);
      });

      it('refuses member keys, the steward key and anonymous callers', async () => {
        const key = await server.app.ctx.db.transaction((tx) => mintMemberKey(tx, alice.handle, 'client_activation', 'cli'));
        const list = await server.request('GET', '/v0/credentials', { token: key.key });
        assertError(list, 'session_required');
        assert.equal((await server.request('POST', `/v0/credentials/${key.id}/revoke`, { token: key.key })).status, 403);
        assert.equal((await server.request('GET', '/v0/credentials', { token: STEWARD_KEY })).status, 403);
        assert.equal((await server.request('GET', '/v0/credentials')).status, 401);
        assert.equal((await server.request('GET', '/v0/me', { token: key.key })).status, 200, 'the key was not revoked');
      });
    });

    describe('POST /v0/sign-up', () => {
      it('is refused while open sign-up is off, and writes nothing', async () => {
        const members = await count(server, 'members');
        const res = await server.request('POST', '/v0/sign-up', { body: { handle: 'sam', email: 'sam@example.test' } });
        assertError(res, 'signup_closed');
        assert.equal(await count(server, 'members'), members);
        assert.deepEqual(await mails(), []);
      });
    });
  });

  describe(`open sign-up (${backend})`, () => {
    let server: TestServer;
    let mails: () => Promise<Mail[]>;
    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_OPEN_SIGNUP: 'true' } });
      mails = outbox(server);
    });
    after(() => server.stop());

    it('creates the human and mails a sign-in code', async () => {
      const res = await server.request('POST', '/v0/sign-up', { body: { handle: 'tess', email: 'Tess@example.test', display_name: 'Tess' } });
      assert.equal(res.status, 202);
      assert.deepEqual(res.body, { status: 'sent' });
      const [mail] = await mails();
      assert.equal(mail!.to, 'tess@example.test');
      const signedIn = await server.request('POST', '/v0/sign-in/verify', { body: { email: 'tess@example.test', code: mail!.code } });
      assert.equal(signedIn.status, 200);
      assert.equal(signedIn.body.member.handle, 'tess');
      assert.equal(signedIn.body.member.display_name, 'Tess');
      assert.equal(signedIn.body.member.email_verified, true);
      const registered = (await hostEvents(server, 'member_registered')).find((e) => e.payload.handle === 'tess');
      assert.equal(registered?.actor, 'tess');
    });

    it('answers 409 for a taken handle', async () => {
      const res = await server.request('POST', '/v0/sign-up', { body: { handle: 'tess', email: 'another@example.test' } });
      assert.equal(res.status, 409);
      assert.deepEqual(await mails(), []);
    });

    it('does not reveal a taken address: its owner gets a code for the existing account', async () => {
      const members = await count(server, 'members');
      const res = await server.request('POST', '/v0/sign-up', { body: { handle: 'tess-two', email: 'tess@example.test' } });
      assert.equal(res.status, 202);
      assert.deepEqual(res.body, { status: 'sent' });
      assert.equal(await count(server, 'members'), members);
      const [mail] = await mails();
      assert.match(mail!.text, /already belongs to @tess/);
      const signedIn = await server.request('POST', '/v0/sign-in/verify', { body: { email: 'tess@example.test', code: mail!.code } });
      assert.equal(signedIn.body.member.handle, 'tess');
    });

    it('answers 422 for bad input and writes nothing', async () => {
      const members = await count(server, 'members');
      for (const body of [{ handle: 'UPPER', email: 'u@example.test' }, { handle: 'uma', email: 'nope' }, { handle: 'uma', email: 'u@example.test', x: 1 }]) {
        assert.equal((await server.request('POST', '/v0/sign-up', { body })).status, 422);
      }
      assert.equal(await count(server, 'members'), members);
      assert.deepEqual(await mails(), []);
    });
  });
}
