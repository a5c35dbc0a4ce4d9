import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertRefusal, CliRunner } from './support/cli.js';
import { outbox } from './support/mail.js';
import { grantTokens } from './support/oauth.js';
import { seedAgent, seedMemberKey } from './support/seed.js';
import { TestClock } from './support/clock.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

const CODE_LINE = /^ {4}([A-Z0-9]{4}-[A-Z0-9]{4})$/m;

for (const backend of backends()) {
  describe(`atrium CLI (${backend})`, () => {
    let server: TestServer;
    let clock: TestClock;
    let cli: CliRunner;
    let owner: { handle: string; session: string };
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };
    before(async () => {
      clock = new TestClock();
      // One-second polls keep the login round trip short.
      server = await startServer(backend, { clock, env: { ATRIUM_ACTIVATION_POLL_SECONDS: '1' } });
      owner = await server.human('olga', { role: 'owner' });
      ada = await server.human('ada');
      bob = await server.human('bob');
      cli = new CliRunner(server.url);
    });
    after(async () => {
      await cli.cleanup();
      await server.stop();
    });

    const createSpace = async (slug: string) => {
      assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug, name: `Space ${slug}` } })).status, 201);
      assert.equal((await server.request('POST', `/v0/spaces/${slug}/approve`, { token: owner.session })).status, 200);
    };

    it('logs in through a browser approval, stores the key privately, and logs out', async () => {
      const login = cli.spawn(['login', '--client-name', 'cli test']);
      const [, code] = await login.waitForStdout(CODE_LINE);
      assert.ok(login.stdout.includes(`${server.url}/activate/${code}`), 'the approval page is printed');
      const approved = await server.request('POST', `/v0/client-activations/${code}/approve`, { token: ada.session });
      assert.equal(approved.status, 200);
      const done = await login.exited;
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /Logged in to .* as ada\./);

      const file = join(cli.configDir, 'credentials.json');
      if (process.platform !== 'win32') {
        assert.equal(statSync(file).mode & 0o777, 0o600);
        assert.equal(statSync(cli.configDir).mode & 0o777, 0o700);
      }
      assert.deepEqual(readdirSync(cli.configDir), ['credentials.json'], 'no temporary file is left behind');
      const stored = JSON.parse(readFileSync(file, 'utf8'));
      assert.deepEqual(Object.keys(stored).sort(), ['handle', 'host', 'key']);
      assert.equal(stored.host, server.url);
      assert.equal(stored.handle, 'ada');
      assert.match(stored.key, /^sk_atrium_/);
      const sessionOnly = await server.request('GET', '/v0/credentials', { token: stored.key });
      assert.equal(sessionOnly.status, 403);

      const [whoami, asBob, otherHost, refused] = await Promise.all([
        cli.run(['whoami']),
        cli.run(['whoami', '--json'], { ATRIUM_TOKEN: bob.session }),
        cli.run(['whoami', '--host', server.url.replace('127.0.0.1', 'localhost')]),
        cli.run(['credentials', 'list']),
      ]);
      assert.equal(whoami.code, 0, whoami.stderr);
      assert.match(whoami.stdout, /^handle:\s+ada$/m);
      assert.match(whoami.stdout, /^type:\s+human$/m);
      assert.match(whoami.stdout, /^status:\s+active$/m);
      assert.equal(asBob.code, 0, asBob.stderr);
      assert.equal(JSON.parse(asBob.stdout).handle, 'bob', 'ATRIUM_TOKEN wins over the stored key');
      assert.equal(otherHost.code, 3);
      assert.match(otherHost.stderr, /^atrium: not logged in to http:\/\/localhost:\d+/, 'the stored key is never sent to another host');
      assert.equal(assertRefusal(refused, 403), 'session_required');
      assert.ok(refused.stderr.includes(sessionOnly.body.detail), refused.stderr);

      // An empty ATRIUM_TOKEN (a variable that expanded to nothing) never means "the stored key".
      const emptyToken = await cli.run(['whoami'], { ATRIUM_TOKEN: '' });
      assert.equal(emptyToken.code, 2);
      assert.equal(emptyToken.stdout, '');
      assert.match(emptyToken.stderr, /^atrium: ATRIUM_TOKEN is set but empty/);

      // Without --host or ATRIUM_URL, every command goes to the host of the login, sign-in too.
      const signIn = await cli.run(['sign-in', '--email', 'nobody@example.test'], { ATRIUM_URL: '' });
      assert.match(signIn.stderr, new RegExp(`If nobody@example\\.test belongs to a member of ${server.url.replace(/[.]/g, '\\.')}, a sign-in code`));
      assert.equal(signIn.code, 1, 'no code was typed');
      const whoamiThere = await cli.run(['whoami'], { ATRIUM_URL: '' });
      assert.equal(whoamiThere.code, 0, whoamiThere.stderr);

      const logout = await cli.run(['logout']);
      assert.equal(logout.code, 0, logout.stderr);
      assert.equal(existsSync(file), false);
      const afterwards = await cli.run(['whoami']);
      assert.equal(afterwards.code, 3);
      assert.match(afterwards.stderr, /^atrium: not logged in to .*atrium login/);
    });

    it('prints the server detail on one line with the exit status of its class, and usage errors exit 2', async () => {
      const closedPort = await unusedPort();
      const [missing, noSlug, unknownOperation, unreachable] = await Promise.all([
        cli.run(['spaces', 'get', 'nope']),
        cli.run(['spaces', 'get']),
        cli.run(['api', 'no_such_operation']),
        cli.run(['spaces', 'list', '--host', `http://127.0.0.1:${closedPort}`]),
      ]);
      const detail = (await server.request('GET', '/v0/spaces/nope')).body.detail;
      assert.equal(assertRefusal(missing, 404), 'space_not_found');
      assert.ok(missing.stderr.includes(detail), missing.stderr);
      assert.equal(missing.stdout, '');
      assert.equal(noSlug.code, 2);
      assert.match(noSlug.stderr, /missing required argument 'slug'/);
      assert.equal(unknownOperation.code, 2);
      assert.match(unknownOperation.stderr, /^atrium: no operation named no_such_operation/);
      assert.equal(unreachable.code, 7);
      assert.match(unreachable.stderr, new RegExp(`^atrium: nothing answers at http://127\\.0\\.0\\.1:${closedPort}: connection refused.*\\n$`));
    });

    it('says that nothing, or nothing Atrium, answers at a wrong port or scheme, rather than "not logged in"', async () => {
      const closedPort = await unusedPort();
      const other = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      try {
        const tls = server.url.replace(/^http:/, 'https:');
        const [refused, plainAsTls, notAtrium, notAtriumWithKey] = await Promise.all([
          cli.run(['spaces', 'propose', 'x', 'X', '--host', `http://127.0.0.1:${closedPort}`]),
          cli.run(['whoami', '--host', tls]),
          cli.run(['whoami', '--host', otherUrl]),
          cli.run(['spaces', 'get', 'x', '--host', otherUrl], { ATRIUM_TOKEN: ada.session }),
        ]);
        assert.equal(refused.code, 7);
        assert.match(refused.stderr, new RegExp(`^atrium: nothing answers at http://127\\.0\\.0\\.1:${closedPort}: connection refused`));
        assert.equal(plainAsTls.code, 7);
        assert.match(plainAsTls.stderr, new RegExp(`^atrium: nothing answers at ${tls.replace(/[.]/g, '\\.')}: `));
        for (const answer of [notAtrium, notAtriumWithKey]) {
          assert.equal(answer.code, 7);
          assert.match(answer.stderr, new RegExp(`^atrium: nothing Atrium answers at ${otherUrl.replace(/[.]/g, '\\.')}: `));
          assert.doesNotMatch(answer.stderr, /not logged in/);
        }
      } finally {
        await new Promise((resolve) => other.close(resolve));
      }
    });

    it("lists a Space's members, saying which are agents and whose", async () => {
      await createSpace('yard');
      const helper = await seedAgent(server, 'ada-helper', 'ada', 'active');
      for (const token of [ada.session, helper.key]) assert.equal((await server.request('POST', '/v0/spaces/yard/join', { token })).status, 200);
      const [table, json] = await Promise.all([cli.run(['spaces', 'members', 'yard']), cli.run(['spaces', 'members', 'yard', '--json'])]);
      assert.equal(table.code, 0, table.stderr);
      const lines = table.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^MEMBER\s+KIND\s+STATE\s+SINCE$/);
      assert.match(lines[1]!, /^ada\s+person\s+admitted\s+\S+Z$/);
      assert.match(lines[2]!, /^ada-helper\s+agent of ada\s+admitted\s+\S+Z$/);
      assert.equal(lines.length, 3);
      assert.deepEqual(JSON.parse(json.stdout), (await server.request('GET', '/v0/spaces/yard/members')).body);
      // A full page says how to read on; the next page starts after its last handle.
      const first = await cli.run(['spaces', 'members', 'yard', '--limit', '1']);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout.trimEnd().split('\n')[1]!, /^ada\s/);
      assert.match(first.stderr, /--before ada\b/);
      const next = await cli.run(['spaces', 'members', 'yard', '--limit', '1', '--before', 'ada', '--state', 'admitted']);
      assert.match(next.stdout.trimEnd().split('\n')[1]!, /^ada-helper\s/);
    });

    it('proposes and approves with a session token and lists Spaces and events as text and JSON', async () => {
      const session = { ATRIUM_TOKEN: owner.session };
      const proposed = await cli.run(['spaces', 'propose', 'garden', 'The Garden', '--purpose', 'Grow things', '--join-policy', 'request'], session);
      assert.equal(proposed.code, 0, proposed.stderr);
      assert.match(proposed.stdout, /^Proposed Space garden/);
      const approved = await cli.run(['spaces', 'approve', 'garden'], session);
      assert.equal(approved.code, 0, approved.stderr);
      assert.equal(
        approved.stdout,
        'Space garden is now active.\nMembers join it with `atrium spaces join garden`; its proposer, olga, is not a member until they do.\n',
      );

      const [table, json, events, eventsJson] = await Promise.all([
        cli.run(['spaces', 'list']),
        cli.run(['spaces', 'list', '--json']),
        cli.run(['events', 'garden']),
        cli.run(['events', 'garden', '--json']),
      ]);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^SLUG\s+NAME\s+STATUS\s+JOIN/);
      assert.match(table.stdout, /^garden\s+The Garden\s+active\s+request\s+olga\s/m);
      assert.deepEqual(JSON.parse(json.stdout), (await server.request('GET', '/v0/spaces')).body);
      assert.equal(events.code, 0, events.stderr);
      assert.match(events.stdout, /^\d+\s+\S+Z\s+space_proposed\s+olga\s+space:garden/m);
      assert.match(events.stdout, /^\d+\s+\S+Z\s+space_approved\s+olga/m);
      assert.deepEqual(JSON.parse(eventsJson.stdout), (await server.request('GET', '/v0/spaces/garden/events')).body);
    });

    it('never lets member-written text drive the terminal', async () => {
      const hostile = 'Evil \u001b[2J\u001b]0;pwned\u0007 Space';
      const proposed = await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'evil', name: hostile } });
      assert.equal(proposed.status, 201);
      const listed = await cli.run(['spaces', 'get', 'evil']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok(!listed.stdout.includes('\u001b') && !listed.stdout.includes('\u0007'), 'no escape or bell reaches the terminal');
      assert.match(listed.stdout, /Evil \uFFFD\[2J\uFFFD\]0;pwned\uFFFD Space/);
      const json = await cli.run(['spaces', 'get', 'evil', '--json']);
      assert.equal(JSON.parse(json.stdout).name, hostile, '--json keeps the data exact (JSON escapes it)');
      // Out of the default listings, which later tests compare exactly.
      assert.equal((await server.request('POST', '/v0/spaces/evil/archive', { token: owner.session, body: {} })).status, 200);
    });

    it('follows a feed, printing events that happen after it started, until Ctrl-C', async () => {
      await createSpace('pond');
      // Long polls: the join is printed when it commits, with no pause to configure.
      const follower = cli.spawn(['events', 'pond', '--follow']);
      // From the newest event on: what came before is not printed again.
      const recent = cli.spawn(['events', 'pond', '--follow', '--newest', '1']);
      await follower.waitForStdout(/space_approved/);
      await recent.waitForStdout(/space_approved/);
      assert.equal((await server.request('POST', '/v0/spaces/pond/join', { token: ada.session })).status, 200);
      await follower.waitForStdout(/space_member_admitted\s+ada/);
      await recent.waitForStdout(/space_member_admitted\s+ada/);
      for (const tail of [follower, recent]) tail.child.kill('SIGINT');
      const [done, fromNewest] = await Promise.all([follower.exited, recent.exited]);
      assert.equal(done.code, 0, done.stderr);
      assert.equal(done.stdout.match(/space_proposed/g)?.length, 1, 'each event is printed once');
      assert.equal(fromNewest.code, 0, fromNewest.stderr);
      assert.doesNotMatch(fromNewest.stdout, /space_proposed/);
      assert.equal(fromNewest.stdout.match(/space_approved/g)?.length, 1);

      // One page of the newest, then further back, with the way on given on stderr.
      const newest = await cli.run(['events', 'pond', '--newest', '1']);
      assert.equal(newest.code, 0, newest.stderr);
      const lastCursor = Number(/^(\d+)\s+\S+Z\s+space_member_admitted/m.exec(newest.stdout)?.[1]);
      assert.equal(newest.stdout.trimEnd().split('\n').length, 2);
      assert.equal(newest.stderr, `Older ones may exist: add --before ${lastCursor}\n`);
      const back = await cli.run(['events', 'pond', '--newest', '5', '--before', String(lastCursor)]);
      assert.match(back.stdout, /space_proposed[\s\S]*space_approved/);
      assert.doesNotMatch(back.stdout, /space_member_admitted/);
      assert.equal(back.stderr, '');
      const misused = await Promise.all([
        cli.run(['events', 'pond', '--before', '3']),
        cli.run(['events', 'pond', '--follow', '--newest', '2', '--before', '3']),
        cli.run(['events', 'pond', '--newest', '2', '--since', '1']),
      ]);
      assert.deepEqual(misused.map((r) => r.code), [2, 2, 1]);
      assert.match(misused[0]!.stderr, /--before reads back from the newest events: add --newest N/);
      assert.equal(assertRefusal(misused[2]!, 422), 'validation_failed');
      // The same columns as a page of `atrium events`, under the same header.
      assert.match(done.stdout, /^CURSOR\s+TIME\s+TYPE\s+ACTOR\s+SUBJECTS\n/);
      const page = await cli.run(['events', 'pond']);
      assert.match(page.stdout, /^CURSOR\s+TIME\s+TYPE\s+ACTOR\s+SUBJECTS\n/);
    });

    it('registers an agent and prints its one-time key', async () => {
      const registered = await cli.run(['agents', 'register', 'helper-bot', '--operator', 'ada', '--capability', 'search', '--capability', 'summarise']);
      assert.equal(registered.code, 0, registered.stderr);
      const key = /^ {4}key: (sk_atrium_\S+)$/m.exec(registered.stdout)?.[1];
      assert.ok(key, registered.stdout);
      const early = await cli.run(['agents', 'approve', 'helper-bot'], { ATRIUM_TOKEN: STEWARD_KEY });
      assert.equal(assertRefusal(early, 409), 'operator_not_confirmed');
      const confirmed = await cli.run(['agents', 'confirm', 'helper-bot'], { ATRIUM_TOKEN: ada.session });
      assert.equal(confirmed.code, 0, confirmed.stderr);
      assert.equal(confirmed.stdout, 'Agent helper-bot is confirmed: ada answers for it. It is pending.\n');
      const approved = await cli.run(['agents', 'approve', 'helper-bot'], { ATRIUM_TOKEN: STEWARD_KEY });
      assert.equal(approved.code, 0, approved.stderr);
      assert.equal(approved.stdout, 'Agent helper-bot is now active.\n');
      const me = await server.request('GET', '/v0/me', { token: key });
      assert.equal(me.status, 200);
      assert.equal(me.body.handle, 'helper-bot');
      assert.deepEqual(me.body.capabilities, ['search', 'summarise']);
    });

    it('calls any declared operation by name through `atrium api`', async () => {
      await createSpace('orchard');
      const [space, proposed] = await Promise.all([
        cli.run(['api', 'get_space', '--param', 'slug=orchard']),
        cli.run(['api', 'propose_space', '--body', JSON.stringify({ slug: 'meadow', name: 'The Meadow' })], { ATRIUM_TOKEN: owner.session }),
      ]);
      assert.equal(space.code, 0, space.stderr);
      assert.deepEqual(JSON.parse(space.stdout), (await server.request('GET', '/v0/spaces/orchard')).body);
      assert.equal(proposed.code, 0, proposed.stderr);
      assert.equal(JSON.parse(proposed.stdout).status, 'proposed');
      const listed = await cli.run(['api', 'list_spaces', '--query', 'status=proposed', '--json']);
      assert.deepEqual(
        JSON.parse(listed.stdout).spaces.map((s: { slug: string }) => s.slug),
        ['meadow'],
      );
    });

    it('signs in with a mailed code for what an API key may not do, and signs out', async () => {
      const mail = outbox(server);
      await mail();
      const signIn = cli.spawn(['sign-in', '--email', 'olga@example.test'], {}, 'pipe');
      await signIn.waitForStderr(/Code from the e-mail: $/);
      const [sent] = await mail();
      assert.ok(sent, 'a code was mailed');
      signIn.child.stdin!.end(`${sent.code}\n`);
      const done = await signIn.exited;
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /^Signed in to \S+ as olga until \S+\. The session is stored in /);
      assert.equal(statSync(join(cli.configDir, 'session.json')).mode & 0o777, 0o600);
      // Role assignments take a sign-in; the stored session is used for them.
      const roles = await cli.run(['roles', 'list']);
      assert.equal(roles.code, 0, roles.stderr);
      assert.match(roles.stdout, /olga/);

      const { token } = JSON.parse(readFileSync(join(cli.configDir, 'session.json'), 'utf8')) as { token: string };
      assert.equal((await server.request('GET', '/v0/me', { token })).status, 200);
      const out = await cli.run(['sign-out']);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, /^Signed out of \S+: the session of olga has ended/);
      assert.equal(existsSync(join(cli.configDir, 'session.json')), false);
      // Ended on the server too, not only forgotten.
      assert.equal((await server.request('GET', '/v0/me', { token })).status, 401);
      const refused = await cli.run(['roles', 'list']);
      assert.equal(refused.code, 3);
    });

    it('names the command that gets a session when an API key is refused', async () => {
      const key = await seedMemberKey(server, owner.handle);
      const refused = await cli.run(['roles', 'list'], { ATRIUM_TOKEN: key });
      assert.equal(assertRefusal(refused, 403), 'session_required');
      assert.match(refused.stderr, /needs a signed-in session.*atrium sign-in/);
    });

    it('lists the programs allowed by OAuth and revokes one, with a session', async () => {
      const tokens = await grantTokens(server, bob.session, { acting_member: 'bob', scope: 'read', resource: 'rest' });
      assert.equal((await server.request('GET', '/v0/me', { token: tokens.access_token })).status, 200);
      const listed = await cli.run(['oauth-grants', 'list'], { ATRIUM_TOKEN: bob.session });
      assert.equal(listed.code, 0, listed.stderr);
      const [header, row] = listed.stdout.trimEnd().split('\n');
      assert.match(header!, /^ID\s+PROGRAM\s+ACTS AS\s+ACCESS\s+SPACES\s+LAST USED\s+REVOKED$/);
      assert.match(row!, /^grant_\S+\s+Test client\s+bob\s+read\s+all\s/);
      const id = row!.split(/\s+/)[0]!;

      const revoked = await cli.run(['oauth-grants', 'revoke', id], { ATRIUM_TOKEN: bob.session });
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal(revoked.stdout, `Revoked ${id}: "Test client" no longer acts as bob.\n`);
      assert.equal((await server.request('GET', '/v0/me', { token: tokens.access_token })).status, 401);
      const json = await cli.run(['oauth-grants', 'list', '--json'], { ATRIUM_TOKEN: bob.session });
      const grants = (JSON.parse(json.stdout) as { grants: Array<{ id: string; revoked_ts: string | null }> }).grants;
      assert.notEqual(grants.find((g) => g.id === id)?.revoked_ts, null);

      // A member key cannot list grants: the CLI says which command gets a session.
      const refused = await cli.run(['oauth-grants', 'list'], { ATRIUM_TOKEN: await seedMemberKey(server, 'bob') });
      assertRefusal(refused, 403);
      assert.match(refused.stderr, /atrium sign-in/);
    });

    it('gives up with a clear message when the activation expires', async () => {
      const login = cli.spawn(['login']);
      await login.waitForStdout(CODE_LINE);
      clock.advance(16 * 60 * 1000);
      const done = await login.exited;
      assert.equal(done.code, 1);
      assert.match(done.stderr, /^atrium: activation \S+ expired before it was approved; run "atrium login" again$/m);
      assert.equal(existsSync(join(cli.configDir, 'credentials.json')), false);
    });
  });
}

/** A loopback port nothing listens on: bound once by the OS, then released. */
function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
