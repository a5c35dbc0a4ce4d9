import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rowCounts, seedAgent, seedMemberKey } from './support/seed.js';
import { activeSpace } from './support/spaces.js';
import { type ContractEvent } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type Person, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/** protocol: Space admission (`open`, `request`, `invite`). */
for (const backend of backends()) {
  describe(`Space admission (${backend})`, () => {
    let server: TestServer;
    let alice: Person;
    let bob: Person;
    let carol: Person;
    let owner: Person;
    let host: Person;

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      bob = await server.human('bob');
      carol = await server.human('carol');
      owner = await server.human('olivia', { role: 'owner' });
      for (const [slug, join_policy] of [
        ['plaza', 'open'],
        ['club', 'request'],
        ['vault', 'invite'],
        ['attic', 'invite'],
      ] as const) {
        await activeSpace(server, alice.session, slug, join_policy);
      }
      // A host of the invite-only Space only: Space-scoped Owner/Host powers.
      host = await server.human('hugo', { role: 'host', space: 'vault' });
    });
    after(() => server.stop());

    const post = (path: string, token?: string, body?: unknown) =>
      server.request('POST', path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
    const events = async (slug: string): Promise<ContractEvent[]> => {
      const { data, response } = await server.as(STEWARD_KEY).GET('/v0/spaces/{slug}/events', { params: { path: { slug }, query: { limit: 500 } } });
      assert.equal(response.status, 200);
      return data!.events;
    };
    const eventsAfter = async (slug: string, count: number) => (await events(slug)).slice(count);
    const members = async (slug: string, token?: string) =>
      server.request('GET', `/v0/spaces/${slug}/members`, token ? { token } : {});

    it('admits at once to an open Space (200, space_member_admitted); joining again changes nothing', async () => {
      const seen = (await events('plaza')).length;
      const res = await post('/v0/spaces/plaza/join', bob.session);
      assert.equal(res.status, 200);
      assert.equal(res.body.state, 'admitted');
      assert.equal(res.body.member, 'bob');
      assert.equal(res.body.space, 'plaza');
      const again = await post('/v0/spaces/plaza/join', bob.session);
      assert.equal(again.status, 200);
      assert.equal(again.body.state, 'admitted');
      const added = await eventsAfter('plaza', seen);
      assert.deepEqual(
        added.map((e) => [e.type, e.actor]),
        [['space_member_admitted', 'bob']],
      );
      assert.deepEqual(added[0]!.payload, { slug: 'plaza', member: 'bob', join_policy: 'open' });
      assert.deepEqual(added[0]!.subjects, ['space:plaza', 'member:bob']);
    });

    it('refuses joins without an active member credential', async () => {
      const before = await rowCounts(server);
      assert.equal((await post('/v0/spaces/plaza/join')).status, 401);
      const pending = await seedAgent(server, 'pending-bot', alice.handle, 'pending');
      assert.equal((await post('/v0/spaces/plaza/join', pending.key)).status, 403);
      assert.equal((await post('/v0/spaces/plaza/join', STEWARD_KEY)).status, 403);
      assert.equal((await post('/v0/spaces/no-such-space/join', bob.session)).status, 404);
      const after = await rowCounts(server);
      // Only the seeded agent's member row was written (not counted here).
      assert.deepEqual(after, before);
    });

    it('lets an active agent join an open Space with its key', async () => {
      const agent = await seedAgent(server, 'open-bot', alice.handle, 'active');
      const res = await post('/v0/spaces/plaza/join', agent.key);
      assert.equal(res.status, 200);
      assert.equal(res.body.state, 'admitted');
    });

    it('files a join request in a request Space (202), which Owner/Host admits or declines', async () => {
      const seen = (await events('club')).length;
      const filed = await post('/v0/spaces/club/join', bob.session);
      assert.equal(filed.status, 202);
      assert.equal(filed.body.state, 'requested');
      const refiled = await post('/v0/spaces/club/join', bob.session);
      assert.equal(refiled.status, 202);
      assert.equal((await post('/v0/spaces/club/join', carol.session)).status, 202);

      // Only Owner/Host decides.
      assert.equal((await post('/v0/spaces/club/join-requests/bob/admit')).status, 401);
      assert.equal((await post('/v0/spaces/club/join-requests/bob/admit', alice.session)).status, 403);
      assert.equal((await post('/v0/spaces/club/join-requests/bob/admit', bob.session)).status, 403);
      assert.equal((await post('/v0/spaces/club/join-requests/bob/decline', host.session)).status, 403);
      // No request to decide: 404.
      assert.equal((await post('/v0/spaces/club/join-requests/alice/admit', owner.session)).status, 404);
      assert.equal((await post('/v0/spaces/club/join-requests/nobody/decline', owner.session)).status, 404);
      assert.equal((await post('/v0/spaces/no-such-space/join-requests/bob/admit', owner.session)).status, 404);

      const admitted = await post('/v0/spaces/club/join-requests/bob/admit', owner.session);
      assert.equal(admitted.status, 200);
      assert.equal(admitted.body.state, 'admitted');
      // An admitted member has no pending request any more.
      assert.equal((await post('/v0/spaces/club/join-requests/bob/admit', owner.session)).status, 404);
      const declined = await post('/v0/spaces/club/join-requests/carol/decline', STEWARD_KEY);
      assert.equal(declined.status, 200);
      assert.equal(declined.body.state, 'none');

      const added = await eventsAfter('club', seen);
      assert.deepEqual(
        added.map((e) => [e.type, e.actor, e.payload.member]),
        [
          ['space_join_requested', 'bob', 'bob'],
          ['space_join_requested', 'carol', 'carol'],
          ['space_member_admitted', 'olivia', 'bob'],
          ['space_join_declined', null, 'carol'],
        ],
      );
      assert.equal(added[3]!.payload.via, 'steward_key');

      // A declined member may ask again.
      assert.equal((await post('/v0/spaces/club/join', carol.session)).status, 202);
    });

    it('admits to an invite Space only by invitation, issued by Owner/Host only', async () => {
      const seen = (await events('vault')).length;
      const before = await rowCounts(server);
      const refused = await post('/v0/spaces/vault/join', carol.session);
      assertError(refused, 'not_admitted');

      // Invitations: Owner/Host of the Space (their session or member key), or the steward key.
      const ownerKey = await seedMemberKey(server, owner.handle);
      assert.equal((await post('/v0/spaces/vault/invitations', undefined, { member: 'carol' })).status, 401);
      assert.equal((await post('/v0/spaces/vault/invitations', alice.session, { member: 'carol' })).status, 403);
      assert.deepEqual(await rowCounts(server), before);
      // Validation and references.
      assert.equal((await post('/v0/spaces/vault/invitations', host.session, {})).status, 422);
      assert.equal((await post('/v0/spaces/vault/invitations', host.session, { member: 'Carol!' })).status, 422);
      assert.equal((await post('/v0/spaces/vault/invitations', host.session, { member: 'nobody' })).status, 422);
      assert.equal((await post('/v0/spaces/no-such-space/invitations', host.session, { member: 'carol' })).status, 404);
      // Invitations belong to invite-only Spaces (the Owner's key gets past the role check to say so).
      assert.equal((await post('/v0/spaces/plaza/invitations', ownerKey, { member: 'carol' })).status, 409);
      assert.deepEqual(await rowCounts(server), before);

      const invited = await post('/v0/spaces/vault/invitations', host.session, { member: 'carol' });
      assert.equal(invited.status, 201);
      assert.equal(invited.body.state, 'invited');
      const joined = await post('/v0/spaces/vault/join', carol.session);
      assert.equal(joined.status, 200);
      assert.equal(joined.body.state, 'admitted');
      // Already admitted: inviting again is a conflict.
      assert.equal((await post('/v0/spaces/vault/invitations', owner.session, { member: 'carol' })).status, 409);

      const added = await eventsAfter('vault', seen);
      assert.deepEqual(
        added.map((e) => [e.type, e.actor, e.payload.member]),
        [
          ['space_member_invited', 'hugo', 'carol'],
          ['space_member_admitted', 'carol', 'carol'],
        ],
      );
    });

    it("lets an Owner or Host of an invite Space join it directly, and tells anyone else who must invite them", async () => {
      await activeSpace(server, alice.session, 'den', 'invite');
      const keeper = await server.human('kira', { role: 'host', space: 'den' });
      const seen = (await events('den')).length;
      // Refused, the detail says what to do: an Owner or Host of the Space invites, then the member joins.
      const detail = assertError(await post('/v0/spaces/den/join', bob.session), 'not_admitted');
      assert.match(detail, /den is invite-only and bob has no invitation: an Owner or Host of den must invite bob, then bob joins/);

      // The Space's own Host, and a host-wide Owner, need no invitation from themselves.
      const hosted = await post('/v0/spaces/den/join', keeper.session);
      assert.equal(hosted.status, 200);
      assert.equal(hosted.body.state, 'admitted');
      assert.equal((await post('/v0/spaces/den/join', owner.session)).body.state, 'admitted');
      // Joining again changes nothing.
      assert.equal((await post('/v0/spaces/den/join', owner.session)).status, 200);
      assert.deepEqual(
        (await eventsAfter('den', seen)).map((e) => [e.type, e.actor, e.payload.member, e.payload.join_policy]),
        [
          ['space_member_admitted', 'kira', 'kira', 'invite'],
          ['space_member_admitted', 'olivia', 'olivia', 'invite'],
        ],
      );
      // A Host of another Space is anyone here.
      assertError(await post('/v0/spaces/attic/join', host.session), 'not_admitted');
    });

    it('lets a member leave, and Owner/Host remove a member', async () => {
      assert.equal((await post('/v0/spaces/plaza/join', carol.session)).status, 200);
      const seen = (await events('plaza')).length;
      const left = await post('/v0/spaces/plaza/leave', carol.session);
      assert.equal(left.status, 200);
      assert.equal(left.body.state, 'none');
      // Not a member any more.
      assert.equal((await post('/v0/spaces/plaza/leave', carol.session)).status, 409);
      assert.equal((await post('/v0/spaces/plaza/leave')).status, 401);

      assert.equal((await post('/v0/spaces/plaza/join', alice.session)).status, 200);
      assert.equal((await post('/v0/spaces/plaza/members/alice/remove', bob.session)).status, 403);
      assert.equal((await post('/v0/spaces/plaza/members/carol/remove', owner.session)).status, 404);
      const removed = await post('/v0/spaces/plaza/members/alice/remove', owner.session);
      assert.equal(removed.status, 200);
      assert.equal(removed.body.state, 'removed');
      assert.equal((await post('/v0/spaces/plaza/members/alice/remove', owner.session)).status, 404);

      const added = await eventsAfter('plaza', seen);
      assert.deepEqual(
        added.map((e) => [e.type, e.actor, e.payload.member]),
        [
          ['space_member_left', 'carol', 'carol'],
          ['space_member_admitted', 'alice', 'alice'],
          ['space_member_removed', 'olivia', 'alice'],
        ],
      );
    });

    it('lists members according to read access; pending states only for Owner/Host', async () => {
      // attic is invite-only: dora is admitted, erin invited.
      const dora = await server.human('dora');
      const erin = await server.human('erin');
      assert.equal((await post('/v0/spaces/attic/invitations', owner.session, { member: 'dora' })).status, 201);
      assert.equal((await post('/v0/spaces/attic/join', dora.session)).status, 200);
      assert.equal((await post('/v0/spaces/attic/invitations', owner.session, { member: 'erin' })).status, 201);

      assert.equal((await members('attic')).status, 401);
      assert.equal((await members('attic', bob.session)).status, 403);
      // An invitation is not admission.
      assert.equal((await members('attic', erin.session)).status, 403);
      const asMember = await members('attic', dora.session);
      assert.equal(asMember.status, 200);
      assert.deepEqual(
        asMember.body.members.map((m: { member: string; state: string }) => [m.member, m.state]),
        [['dora', 'admitted']],
      );
      for (const token of [owner.session, STEWARD_KEY]) {
        const asOwner = await members('attic', token);
        assert.equal(asOwner.status, 200);
        assert.deepEqual(
          asOwner.body.members.map((m: { member: string; state: string }) => [m.member, m.state]),
          [
            ['dora', 'admitted'],
            ['erin', 'invited'],
          ],
        );
      }
      // A host of another Space is an outsider here.
      assert.equal((await members('attic', host.session)).status, 403);

      // Request Spaces are public to read; requests are listed for Owner/Host only.
      const frank = await server.human('frank');
      assert.equal((await post('/v0/spaces/club/join', frank.session)).status, 202);
      const anonymous = await members('club');
      assert.equal(anonymous.status, 200);
      assert.ok(anonymous.body.members.every((m: { state: string }) => m.state === 'admitted'));
      assert.ok(!anonymous.body.members.some((m: { member: string }) => m.member === 'frank'));
      const asOwner = await members('club', owner.session);
      assert.ok(asOwner.body.members.some((m: { member: string; state: string }) => m.member === 'frank' && m.state === 'requested'));
      assert.equal((await members('no-such-space')).status, 404);
    });

    it('says of each member listed whether a person or an agent holds it, and whose agent', async () => {
      await server.human('hiro');
      const helper = await seedAgent(server, 'hiro-helper', 'hiro', 'active');
      assert.equal((await post('/v0/spaces/club/join', helper.key)).status, 202);
      assert.equal((await post('/v0/spaces/club/join-requests/hiro-helper/admit', owner.session)).status, 200);
      const listed = (await members('club')).body.members as Array<Record<string, unknown>>;
      const { updated_ts, ...agent } = listed.find((m) => m.member === 'hiro-helper')!;
      assert.deepEqual(agent, { space: 'club', member: 'hiro-helper', state: 'admitted', member_type: 'agent', operator: 'hiro' });
      assert.equal(typeof updated_ts, 'string');
      const people = listed.filter((m) => m.member !== 'hiro-helper');
      assert.ok(people.length > 0);
      for (const person of people) assert.deepEqual([person.member_type, person.operator], ['human', null], String(person.member));
    });

    it('guards the event feed of an invite Space; a removed member loses access at once', async () => {
      const gina = await server.human('gina');
      const ginaKey = await seedMemberKey(server, gina.handle);
      const feed = (token?: string) => server.request('GET', '/v0/spaces/vault/events', token ? { token } : {});
      assert.equal((await feed()).status, 401);
      assert.equal((await feed(gina.session)).status, 403);
      assert.equal((await post('/v0/spaces/vault/invitations', owner.session, { member: 'gina' })).status, 201);
      // Invited is not admitted.
      assert.equal((await feed(gina.session)).status, 403);
      assert.equal((await post('/v0/spaces/vault/join', gina.session)).status, 200);
      const admitted = await feed(gina.session);
      assert.equal(admitted.status, 200);
      assert.ok(admitted.body.events.some((e: ContractEvent) => e.type === 'space_member_admitted' && e.payload.member === 'gina'));
      assert.equal((await feed(ginaKey)).status, 200);
      // Owner/Host and the steward key read without admission.
      assert.equal((await feed(host.session)).status, 200);
      assert.equal((await feed(STEWARD_KEY)).status, 200);

      assert.equal((await post('/v0/spaces/vault/members/gina/remove', host.session)).status, 200);
      assert.equal((await feed(gina.session)).status, 403);
      assert.equal((await feed(ginaKey)).status, 403);
      assert.equal((await members('vault', gina.session)).status, 403);
      // Removed from an invite Space: rejoining needs a new invitation.
      assert.equal((await post('/v0/spaces/vault/join', gina.session)).status, 403);

      // Open and request Spaces are public to read.
      assert.equal((await server.request('GET', '/v0/spaces/plaza/events')).status, 200);
      assert.equal((await server.request('GET', '/v0/spaces/club/events')).status, 200);
    });

    it('refuses joins to an archived Space', async () => {
      const res = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'closed', name: 'Closed' } });
      assert.equal(res.status, 201);
      assert.equal((await post('/v0/spaces/closed/archive', STEWARD_KEY, {})).status, 200);
      assert.equal((await post('/v0/spaces/closed/join', bob.session)).status, 409);
    });

    it('records one admission when the same member joins many times at once', async () => {
      const hana = await server.human('hana');
      const seen = (await events('plaza')).length;
      const results = await Promise.all(Array.from({ length: 6 }, () => post('/v0/spaces/plaza/join', hana.session)));
      assert.deepEqual(
        results.map((r) => [r.status, r.body.state]),
        results.map(() => [200, 'admitted']),
      );
      const added = await eventsAfter('plaza', seen);
      assert.deepEqual(
        added.map((e) => [e.type, e.payload.member]),
        [['space_member_admitted', 'hana']],
      );

      // Racing leaves: one succeeds, the others find no membership; one event.
      const leaves = await Promise.all(Array.from({ length: 6 }, () => post('/v0/spaces/plaza/leave', hana.session)));
      assert.deepEqual(
        leaves.map((r) => r.status).sort(),
        [200, 409, 409, 409, 409, 409],
      );
      const afterLeaves = await eventsAfter('plaza', seen);
      assert.deepEqual(
        afterLeaves.map((e) => e.type),
        ['space_member_admitted', 'space_member_left'],
      );
    });

    it("pages a Space's member list by handle within one state, and keeps other states to its Owner/Host", async () => {
      await activeSpace(server, owner.session, 'roster', 'request');
      const people = await Promise.all(['ro-a', 'ro-b', 'ro-c', 'ro-d', 'ro-e', 'ro-f'].map((h) => server.human(h)));
      for (const p of people) assert.equal((await post('/v0/spaces/roster/join', p.session)).status, 202);
      for (const p of people.slice(0, 4)) assert.equal((await post(`/v0/spaces/roster/join-requests/${p.handle}/admit`, owner.session)).status, 200);
      const page = async (query: string, token?: string) => server.request('GET', `/v0/spaces/roster/members?${query}`, token ? { token } : {});
      const handles = (res: { body: { members: Array<{ member: string; state: string }> } }) => res.body.members.map((m) => `${m.member}:${m.state}`);

      // Everyone who may read sees admitted members only, a page at a time, each after the last handle held.
      const first = await page('limit=2');
      assert.deepEqual(handles(first), ['ro-a:admitted', 'ro-b:admitted']);
      assert.deepEqual(handles(await page('limit=2&before=ro-b')), ['ro-c:admitted', 'ro-d:admitted']);
      assert.deepEqual(handles(await page('limit=2&before=ro-c', carol.session)), ['ro-d:admitted']);
      assert.deepEqual(handles(await page('state=admitted&before=ro-b')), ['ro-c:admitted', 'ro-d:admitted']);
      // Anything else is the Owner/Host's: asked for by anyone else, a refusal rather than an empty page.
      assertError(await page('state=requested', carol.session), 'role_required');
      assertError(await page('state=requested'), 'role_required');
      assert.deepEqual(handles(await page('state=requested', owner.session)), ['ro-e:requested', 'ro-f:requested']);
      assert.deepEqual(handles(await page('state=requested&limit=1&before=ro-e', owner.session)), ['ro-f:requested']);
      // Without a state the Owner/Host reads every membership in handle order.
      assert.deepEqual(handles(await page('before=ro-d', owner.session)), ['ro-e:requested', 'ro-f:requested']);
      // Without a limit a page holds up to 50; 200 is the most.
      assert.equal((await page('')).body.members.length, 4);
      assertError(await page('limit=201'), 'validation_failed');
      assertError(await page('limit=0'), 'validation_failed');
      assertError(await page('state=none', owner.session), 'validation_failed');
    });
  });
}

for (const backend of backends()) {
  describe(`Removal from an open Space (${backend})`, () => {
    let server: TestServer;
    let owner: { handle: string; session: string };
    let rae: { handle: string; session: string };
    before(async () => {
      server = await startServer(backend);
      owner = await server.human('removal-owner', { role: 'owner' });
      rae = await server.human('rae');
      await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'commons', name: 'Commons' } });
      await server.request('POST', '/v0/spaces/commons/approve', { token: owner.session });
    });
    after(() => server.stop());

    it('keeps a removed member out until an Owner/Host invites them back', async () => {
      assert.equal((await server.request('POST', '/v0/spaces/commons/join', { token: rae.session })).status, 200);
      const removed = await server.request('POST', '/v0/spaces/commons/members/rae/remove', { token: owner.session });
      assert.equal(removed.body.state, 'removed');

      const rejoin = await server.request('POST', '/v0/spaces/commons/join', { token: rae.session });
      assertError(rejoin, 'not_admitted');

      const stranger = await server.human('stranger');
      const strangerInvite = await server.request('POST', '/v0/spaces/commons/invitations', {
        token: owner.session,
        body: { member: stranger.handle },
      });
      assert.equal(strangerInvite.status, 409, 'open Spaces need no invitations for members never removed');

      const invited = await server.request('POST', '/v0/spaces/commons/invitations', { token: owner.session, body: { member: 'rae' } });
      assert.equal(invited.status, 201);
      assert.equal(invited.body.state, 'invited');
      const back = await server.request('POST', '/v0/spaces/commons/join', { token: rae.session });
      assert.equal(back.status, 200);
      assert.equal(back.body.state, 'admitted');
    });
  });
}
