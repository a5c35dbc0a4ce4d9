import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rowCounts, seedAgent, seedMemberKey, setMemberStatus } from './support/seed.js';
import { type ContractEvent } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type Person, type TestResponse, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';
import type { ErrorCode } from '../src/shared/error-catalogue.js';

/** A Space's feed as the steward key reads it. */
async function stewardFeed(server: TestServer, slug: string, query: { limit?: number } = {}): Promise<ContractEvent[]> {
  const { data, response } = await server.as(STEWARD_KEY).GET('/v0/spaces/{slug}/events', { params: { path: { slug }, query } });
  assert.equal(response.status, 200);
  return data!.events;
}

for (const backend of backends()) {
  describe(`Spaces (${backend})`, () => {
    let server: TestServer;
    let alice: Person;
    let owner: Person;

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      owner = await server.human('olivia', { role: 'owner' });
    });
    after(() => server.stop());

    const propose = (slug: string, extra: Record<string, unknown> = {}, token = alice.session) =>
      server.request('POST', '/v0/spaces', { token, body: { slug, name: `Space ${slug}`, ...extra } });

    const feed = (slug: string) => stewardFeed(server, slug, { limit: 500 });

    /** Runs `fn`, asserts it answered the error `code` with a `{detail}` body, and that no row was written. */
    const refusedWithoutWrites = async (code: ErrorCode, fn: () => Promise<TestResponse>, label = ''): Promise<TestResponse> => {
      const before = await rowCounts(server);
      const res = await fn();
      assertError(res, code, label);
      assert.deepEqual(Object.keys(res.body as object), ['detail'], label);
      assert.deepEqual(await rowCounts(server), before, `${label} wrote something`);
      return res;
    };

    it('proposes, approves and lists a Space with its events', async () => {
      const created = await server.request('POST', '/v0/spaces', {
        token: alice.session,
        body: { slug: 'garden', name: 'Garden', purpose: 'Grow things' },
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.status, 'proposed');
      assert.equal(created.body.created_by, 'alice');
      assert.equal(created.body.steward, 'alice');
      assert.equal(created.body.join_policy, 'open');
      assert.equal(created.body.purpose, 'Grow things');
      assert.equal(created.body.charter, '');
      assert.deepEqual(created.body.pinned_resources, []);

      const approved = await server.request('POST', '/v0/spaces/garden/approve', { token: owner.session });
      assert.equal(approved.status, 200);
      assert.equal(approved.body.status, 'active');

      const again = await server.request('POST', '/v0/spaces/garden/approve', { token: STEWARD_KEY });
      assert.equal(again.status, 409);

      const events = await feed('garden');
      assert.deepEqual(
        events.map((e) => e.type),
        ['space_proposed', 'space_approved'],
      );
      assert.equal(events[0]!.actor, 'alice');
      assert.deepEqual(events[0]!.payload, { slug: 'garden', name: 'Garden', join_policy: 'open' });
      assert.equal(events[1]!.actor, 'olivia');
      assert.ok(events.every((e) => e.space === 'garden' && e.subjects.includes('space:garden')));
    });

    it('accepts a proposal made with an active human member key', async () => {
      const key = await seedMemberKey(server, alice.handle);
      const res = await propose('by-key', {}, key);
      assert.equal(res.status, 201);
      assert.equal(res.body.created_by, 'alice');
    });

    it('refuses proposals from anyone but an active human member, writing nothing', async () => {
      await refusedWithoutWrites('credential_required', () => server.request('POST', '/v0/spaces', { body: { slug: 'anon', name: 'Anon' } }), 'anonymous');
      const pending = await seedAgent(server, 'pending-bot', alice.handle, 'pending');
      await refusedWithoutWrites('member_pending', () => propose('by-pending', {}, pending.key), 'pending agent');
      const active = await seedAgent(server, 'active-bot', alice.handle, 'active');
      await refusedWithoutWrites('human_required', () => propose('by-agent', {}, active.key), 'active agent');
      const suspended = await server.human('sam');
      await setMemberStatus(server, suspended.handle, 'suspended');
      await refusedWithoutWrites('member_suspended', () => propose('by-suspended', {}, suspended.session), 'suspended human');
      await refusedWithoutWrites('steward_key_refused', () => propose('by-steward', {}, STEWARD_KEY), 'steward key');
      await refusedWithoutWrites('key_invalid', () => propose('by-unknown', {}, 'sk_atrium_not-a-key'), 'unknown key');
    });

    it('refuses a duplicate slug, and a duplicate name regardless of case, with 409', async () => {
      assert.equal((await propose('orchard', { name: 'Orchard' })).status, 201);
      await refusedWithoutWrites('space_exists', () => propose('orchard', { name: 'Another Orchard' }), 'slug');
      await refusedWithoutWrites('space_exists', () => propose('orchard-2', { name: 'Orchard' }), 'same name');
      await refusedWithoutWrites('space_exists', () => propose('orchard-3', { name: 'ORCHARD' }), 'upper-case name');
      await refusedWithoutWrites('space_exists', () => propose('orchard-4', { name: 'orChard' }), 'mixed-case name');
    });

    it('validates every field of a proposal (422, nothing written)', async () => {
      const valid = { slug: 'valid-slug', name: 'Valid name' };
      const cases: Array<[string, unknown]> = [
        ['slug of 2 chars', { ...valid, slug: 'ab' }],
        ['slug of 65 chars', { ...valid, slug: 'a'.repeat(65) }],
        ['slug with capitals', { ...valid, slug: 'Garden' }],
        ['slug with underscore', { ...valid, slug: 'my_space' }],
        ['slug with a double hyphen', { ...valid, slug: 'my--space' }],
        ['slug with a leading hyphen', { ...valid, slug: '-space' }],
        ['slug with a trailing hyphen', { ...valid, slug: 'space-' }],
        ['name of 2 chars', { ...valid, name: 'ab' }],
        ['name of 129 chars', { ...valid, name: 'n'.repeat(129) }],
        ['purpose of 281 chars', { ...valid, purpose: 'p'.repeat(281) }],
        ['charter of 10001 chars', { ...valid, charter: 'c'.repeat(10001) }],
        ['unknown join_policy', { ...valid, join_policy: 'secret' }],
        ['unknown field', { ...valid, colour: 'green' }],
        ['a number for name', { ...valid, name: 5 }],
        ['null slug', { ...valid, slug: null }],
        ['a number for purpose', { ...valid, purpose: 42 }],
        ['missing slug', { name: 'No slug' }],
        ['missing name', { slug: 'no-name' }],
        ['an array body', [valid]],
        ['a string body', 'valid-slug'],
        ['a null body', null],
      ];
      for (const [label, body] of cases) {
        await refusedWithoutWrites('validation_failed', () => server.request('POST', '/v0/spaces', { token: alice.session, body }), label);
      }
      await refusedWithoutWrites('body_malformed', () => server.request('POST', '/v0/spaces', { token: alice.session }), 'no body');
      await refusedWithoutWrites('body_malformed', () => server.request('POST', '/v0/spaces', { token: alice.session, rawBody: '{"slug": "x",' }), 'malformed JSON');
      const tooLong = await refusedWithoutWrites('validation_failed', () => propose('ab'), 'detail names the field');
      // Which field broke its rule is the point of this case.
      assert.match(tooLong.body.detail, /slug/);
    });

    it('accepts every field at its limits', async () => {
      const slug = 'l'.repeat(64);
      const res = await server.request('POST', '/v0/spaces', {
        token: alice.session,
        body: { slug, name: 'N'.repeat(128), purpose: 'p'.repeat(280), charter: 'c'.repeat(10000), join_policy: 'invite' },
      });
      assert.equal(res.status, 201);
      assert.equal(res.body.charter.length, 10000);
      assert.equal(res.body.join_policy, 'invite');
      assert.equal((await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'abc', name: 'Abc' } })).status, 201);
      assert.equal((await propose('a-1-b', { join_policy: 'request' })).body.join_policy, 'request');
    });

    it('reads a Space by slug (200) and answers 404 for an unknown one', async () => {
      assert.equal((await propose('readable')).status, 201);
      const res = await server.request('GET', '/v0/spaces/readable');
      assert.equal(res.status, 200);
      assert.equal(res.body.slug, 'readable');
      assert.equal(res.body.review_policy, 'independent_principal');
      const missing = await server.request('GET', '/v0/spaces/no-such-space');
      assert.equal(missing.status, 404);
      assert.deepEqual(Object.keys(missing.body), ['detail']);
    });
  });

  describe(`Space listing (${backend})`, () => {
    let server: TestServer;
    let alice: Person;
    let owner: Person;
    let scopedHost: Person;

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      owner = await server.human('olivia', { role: 'owner' });
      for (const slug of ['first', 'second', 'third', 'fourth']) {
        const res = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug, name: slug } });
        assert.equal(res.status, 201);
      }
      scopedHost = await server.human('hank', { role: 'host', space: 'first' });
      assert.equal((await server.request('POST', '/v0/spaces/second/approve', { token: STEWARD_KEY })).status, 200);
      assert.equal((await server.request('POST', '/v0/spaces/third/archive', { token: STEWARD_KEY, body: {} })).status, 200);
    });
    after(() => server.stop());

    const slugs = (res: { body: { spaces: Array<{ slug: string }> } }) => res.body.spaces.map((s) => s.slug);

    it('lists proposed and active Spaces newest first by default; archived ones drop out', async () => {
      const res = await server.request('GET', '/v0/spaces');
      assert.equal(res.status, 200);
      assert.equal(res.body.protocol, 'atrium/0.1-draft');
      assert.deepEqual(slugs(res), ['fourth', 'second', 'first']);
    });

    it('filters by status', async () => {
      assert.deepEqual(slugs(await server.request('GET', '/v0/spaces?status=proposed')), ['fourth', 'first']);
      assert.deepEqual(slugs(await server.request('GET', '/v0/spaces?status=active')), ['second']);
      assert.deepEqual(slugs(await server.request('GET', '/v0/spaces?status=archived', { token: STEWARD_KEY })), ['third']);
      assert.deepEqual(slugs(await server.request('GET', '/v0/spaces?status=archived', { token: owner.session })), ['third']);
    });

    it('guards the archived listing: 401 without a key, 403 for a wrong key or a non-owner', async () => {
      assert.equal((await server.request('GET', '/v0/spaces?status=archived')).status, 401);
      assert.equal((await server.request('GET', '/v0/spaces?status=archived', { token: 'not-the-steward-key' })).status, 403);
      assert.equal((await server.request('GET', '/v0/spaces?status=archived', { token: alice.session })).status, 403);
      // A Space-scoped host is not host-wide.
      assert.equal((await server.request('GET', '/v0/spaces?status=archived', { token: scopedHost.session })).status, 403);
    });

    it('rejects an unknown status or query parameter with 422', async () => {
      const res = await server.request('GET', '/v0/spaces?status=deleted');
      // The detail names the parameter at fault.
      assert.match(assertError(res, 'validation_failed'), /status/);
      assert.equal((await server.request('GET', '/v0/spaces?sort=name')).status, 422);
    });
  });

  describe(`Space status transitions (${backend})`, () => {
    let server: TestServer;
    let alice: Person;
    let owner: Person;
    let hostWide: Person;
    let scopedHost: Person;

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      owner = await server.human('olivia', { role: 'owner' });
      hostWide = await server.human('harriet', { role: 'host' });
      const res = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: 'guarded', name: 'Guarded' } });
      assert.equal(res.status, 201);
      scopedHost = await server.human('hank', { role: 'host', space: 'guarded' });
    });
    after(() => server.stop());

    const propose = async (slug: string) => {
      const res = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug, name: slug } });
      assert.equal(res.status, 201);
    };
    const act = (slug: string, verb: string, token?: string, body?: unknown) =>
      server.request('POST', `/v0/spaces/${slug}/${verb}`, {
        ...(token ? { token } : {}),
        ...(body !== undefined ? { body } : verb === 'archive' ? { body: {} } : {}),
      });
    const feed = (slug: string) => stewardFeed(server, slug);

    it('refuses approve, archive and restore to everyone but a host-wide Owner/Host or the steward key', async () => {
      const agent = await seedAgent(server, 'helper-bot', owner.handle, 'active');
      for (const verb of ['approve', 'archive', 'restore']) {
        const before = await rowCounts(server);
        const refusals: Array<[string, string | undefined, number]> = [
          ['anonymous', undefined, 401],
          ['unknown key', 'sk_atrium_unknown', 401],
          ['wrong steward key', 'not-the-steward-key', 403],
          ['plain member session', alice.session, 403],
          ['Space-scoped host session', scopedHost.session, 403],
          ['agent', agent.key, 403],
        ];
        for (const [label, token, status] of refusals) {
          const res = await act('guarded', verb, token);
          assert.equal(res.status, status, `${verb} by ${label}: ${JSON.stringify(res.body)}`);
          assert.deepEqual(Object.keys(res.body), ['detail']);
        }
        assert.deepEqual(await rowCounts(server), before, `${verb} refusals wrote something`);
        assert.equal((await act('no-such-space', verb, STEWARD_KEY)).status, 404);
        assert.equal((await act('no-such-space', verb, owner.session)).status, 404);
      }
      assert.equal((await server.request('GET', '/v0/spaces/guarded')).body.status, 'proposed');
    });

    it('moves through every status with exactly one event per transition, and 409 on the wrong status', async () => {
      await propose('cycle');
      // proposed: restore is refused.
      assert.equal((await act('cycle', 'restore', STEWARD_KEY)).status, 409);
      const archived = await act('cycle', 'archive', owner.session, { reason: 'not yet' });
      assert.equal(archived.status, 200);
      assert.equal(archived.body.status, 'archived');
      // archived: approve and archive are refused.
      assert.equal((await act('cycle', 'approve', STEWARD_KEY)).status, 409);
      assert.equal((await act('cycle', 'archive', STEWARD_KEY)).status, 409);
      const restored = await act('cycle', 'restore', STEWARD_KEY);
      assert.equal(restored.status, 200);
      assert.equal(restored.body.status, 'proposed');
      const approved = await act('cycle', 'approve', hostWide.session);
      assert.equal(approved.status, 200);
      assert.equal(approved.body.status, 'active');
      // active: approve, archive (active Spaces cannot be archived) and restore are refused.
      const before = await rowCounts(server);
      for (const verb of ['approve', 'archive', 'restore']) {
        const res = await act('cycle', verb, STEWARD_KEY);
        assertError(res, 'space_transition_invalid', verb);
      }
      assert.deepEqual(await rowCounts(server), before);

      const events = await feed('cycle');
      assert.deepEqual(
        events.map((e) => [e.type, e.actor]),
        [
          ['space_proposed', 'alice'],
          ['space_archived', 'olivia'],
          ['space_restored', null],
          ['space_approved', 'harriet'],
        ],
      );
      assert.deepEqual(events[1]!.payload, { slug: 'cycle', reason: 'not yet' });
      // protocol: The event object. The steward key acts with actor null and payload.via.
      assert.deepEqual(events[2]!.payload, { slug: 'cycle', via: 'steward_key' });
      assert.equal(events[3]!.payload.via, undefined);
    });

    it('records steward approvals with actor null and via steward_key', async () => {
      await propose('by-steward');
      assert.equal((await act('by-steward', 'approve', STEWARD_KEY)).status, 200);
      const events = await feed('by-steward');
      assert.equal(events.length, 2);
      assert.equal(events[1]!.type, 'space_approved');
      assert.equal(events[1]!.actor, null);
      assert.equal(events[1]!.payload.via, 'steward_key');
    });

    it('requires an archive body: {} works, no body or a long reason is 422', async () => {
      await propose('to-archive');
      const noBody = await server.request('POST', '/v0/spaces/to-archive/archive', { token: STEWARD_KEY });
      assertError(noBody, 'body_malformed');
      assert.equal((await act('to-archive', 'archive', STEWARD_KEY, { reason: 'r'.repeat(501) })).status, 422);
      assert.equal((await act('to-archive', 'archive', STEWARD_KEY, { reason: 7 })).status, 422);
      assert.equal((await act('to-archive', 'archive', STEWARD_KEY, { why: 'x' })).status, 422);
      assert.equal((await server.request('GET', '/v0/spaces/to-archive')).body.status, 'proposed');
      assert.deepEqual((await feed('to-archive')).map((e) => e.type), ['space_proposed']);

      const res = await act('to-archive', 'archive', STEWARD_KEY, {});
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'archived');
      const events = await feed('to-archive');
      assert.deepEqual(events[1]!.payload, { slug: 'to-archive', reason: '', via: 'steward_key' });

      await propose('long-reason');
      assert.equal((await act('long-reason', 'archive', STEWARD_KEY, { reason: 'r'.repeat(500) })).status, 200);
    });

    it('archived Spaces stay readable by slug and return to the listing when restored', async () => {
      await propose('comeback');
      assert.equal((await act('comeback', 'archive', STEWARD_KEY)).status, 200);
      assert.equal((await server.request('GET', '/v0/spaces/comeback')).body.status, 'archived');
      const listed = async () => (await server.request('GET', '/v0/spaces')).body.spaces.map((s: { slug: string }) => s.slug);
      assert.ok(!(await listed()).includes('comeback'));
      assert.equal((await act('comeback', 'restore', owner.session)).status, 200);
      assert.ok((await listed()).includes('comeback'));
    });
  });

  describe(`Review policy (${backend})`, () => {
    let server: TestServer;
    let alice: Person;
    let owner: Person;
    let scopedHost: Person;
    let otherHost: Person;
    let ownerKey: string;

    before(async () => {
      server = await startServer(backend);
      alice = await server.human('alice');
      owner = await server.human('olivia', { role: 'owner' });
      for (const slug of ['policy', 'elsewhere']) {
        const res = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug, name: slug } });
        assert.equal(res.status, 201);
      }
      scopedHost = await server.human('hank', { role: 'host', space: 'policy' });
      otherHost = await server.human('oscar', { role: 'host', space: 'elsewhere' });
      ownerKey = await seedMemberKey(server, owner.handle);
    });
    after(() => server.stop());

    const change = (token: string | undefined, body: unknown, slug = 'policy') =>
      server.request('POST', `/v0/spaces/${slug}/review-policy`, { ...(token ? { token } : {}), body });
    const policyEvents = async () => (await stewardFeed(server, 'policy')).filter((e) => e.type === 'space_review_policy_changed');

    it('refuses anyone but an Owner/Host session of the Space or the steward key: API keys too', async () => {
      const body = { review_policy: 'distinct_member', reason: 'two people suffice' };
      const before = await rowCounts(server);
      assert.equal((await change(undefined, body)).status, 401);
      assert.equal((await change('not-the-steward-key', body)).status, 403);
      assert.equal((await change(alice.session, body)).status, 403);
      assert.equal((await change(ownerKey, body)).status, 403);
      assert.equal((await change(otherHost.session, body)).status, 403);
      assert.deepEqual(await rowCounts(server), before);
      assert.equal((await change(STEWARD_KEY, body, 'no-such-space')).status, 404);
      assert.equal((await server.request('GET', '/v0/spaces/policy')).body.review_policy, 'independent_principal');
    });

    it('validates policy and reason (422, nothing written)', async () => {
      const before = await rowCounts(server);
      const cases: Array<[string, unknown]> = [
        ['reason of 2 chars', { review_policy: 'self_attested', reason: 'no' }],
        ['reason of 1001 chars', { review_policy: 'self_attested', reason: 'r'.repeat(1001) }],
        ['missing reason', { review_policy: 'self_attested' }],
        ['missing policy', { reason: 'because' }],
        ['invalid policy', { review_policy: 'anyone', reason: 'because' }],
        ['unknown field', { review_policy: 'self_attested', reason: 'because', force: true }],
      ];
      for (const [label, body] of cases) {
        const res = await change(STEWARD_KEY, body);
        assert.equal(res.status, 422, label);
        assert.deepEqual(Object.keys(res.body), ['detail']);
      }
      assert.equal((await server.request('POST', '/v0/spaces/policy/review-policy', { token: STEWARD_KEY })).status, 422);
      assert.deepEqual(await rowCounts(server), before);
    });

    it('changes the policy for a Space-scoped host, a host-wide owner and the steward key, with events', async () => {
      const byHost = await change(scopedHost.session, { review_policy: 'distinct_member', reason: 'two people suffice' });
      assert.equal(byHost.status, 200);
      assert.equal(byHost.body.review_policy, 'distinct_member');
      const byOwner = await change(owner.session, { review_policy: 'self_attested', reason: 'r'.repeat(1000) });
      assert.equal(byOwner.status, 200);
      const bySteward = await change(STEWARD_KEY, { review_policy: 'independent_principal', reason: 'abc' });
      assert.equal(bySteward.status, 200);
      assert.equal((await server.request('GET', '/v0/spaces/policy')).body.review_policy, 'independent_principal');

      const events = await policyEvents();
      assert.deepEqual(
        events.map((e) => [e.actor, e.payload.previous_review_policy, e.payload.review_policy]),
        [
          ['hank', 'independent_principal', 'distinct_member'],
          ['olivia', 'distinct_member', 'self_attested'],
          [null, 'self_attested', 'independent_principal'],
        ],
      );
      assert.equal(events[0]!.payload.reason, 'two people suffice');
      assert.equal(events[2]!.payload.via, 'steward_key');
    });

    it('setting the policy a Space already has changes nothing and emits no event', async () => {
      const before = (await policyEvents()).length;
      const current = (await server.request('GET', '/v0/spaces/policy')).body.review_policy;
      const res = await change(STEWARD_KEY, { review_policy: current, reason: 'just checking' });
      assert.equal(res.status, 200);
      assert.equal(res.body.review_policy, current);
      assert.equal((await policyEvents()).length, before);
    });
  });
}
