import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { changeReviewPolicy } from '../src/spaces/service.js';
import { TestClock } from './support/clock.js';
import { assertError } from './support/errors.js';
import { seedMemberKey, storedEvents } from './support/seed.js';
import { type ContractPage } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type Person, type TestServer } from './support/server.js';

/** protocol: Events, Feeds. */
for (const backend of backends()) {
  describe(`Event feeds (${backend})`, () => {
    const clock = new TestClock();
    let server: TestServer;
    let alice: Person;
    let owner: Person;
    let host: Person;
    /** Events in Space `busy` seeded before the tests (proposal + the policy changes below). */
    const POLICY_CHANGES = 129;

    before(async () => {
      server = await startServer(backend, { clock });
      alice = await server.human('alice');
      owner = await server.human('olivia', { role: 'owner' });
      host = await server.human('harriet', { role: 'host' });
      for (const slug of ['busy', 'quiet']) {
        const res = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug, name: slug } });
        assert.equal(res.status, 201);
      }
      // 129 real review-policy changes in one transaction: with the proposal, 130
      // events in `busy`, more than a default page.
      const policies = ['distinct_member', 'self_attested', 'independent_principal'] as const;
      await server.app.ctx.db.transaction(async (tx) => {
        for (let i = 0; i < POLICY_CHANGES; i++) {
          await changeReviewPolicy(tx, { kind: 'steward' }, 'busy', policies[i % 3]!, `change ${i}`);
        }
      });
    });
    after(() => server.stop());

    const page = async (path: string, token?: string): Promise<ContractPage> => {
      const res = await server.request<ContractPage>('GET', path, token ? { token } : {});
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.protocol, 'atrium/0.1-draft');
      return res.body;
    };
    const status = async (path: string, token?: string) => (await server.request('GET', path, token ? { token } : {})).status;

    it('serves events oldest first with the documented event object', async () => {
      const first = await page('/v0/spaces/quiet/events');
      assert.equal(first.events.length, 1);
      const event = first.events[0]!;
      assert.deepEqual(Object.keys(event).sort(), ['actor', 'created_ts', 'cursor', 'payload', 'space', 'subjects', 'type']);
      assert.equal(event.type, 'space_proposed');
      assert.equal(event.space, 'quiet');
      assert.equal(event.actor, 'alice');
      assert.ok(Number.isInteger(event.cursor) && event.cursor > 0);
      // Timestamps come from the injected clock.
      assert.equal(event.created_ts, clock.now().toISOString());
      assert.equal(first.cursor, event.cursor);

      clock.advance(60_000);
      assert.equal((await server.request('POST', '/v0/spaces/quiet/approve', { token: STEWARD_KEY })).status, 200);
      const next = await page(`/v0/spaces/quiet/events?since=${first.cursor}`);
      assert.deepEqual(
        next.events.map((e) => e.type),
        ['space_approved'],
      );
      assert.equal(next.events[0]!.created_ts, clock.now().toISOString());
      assert.ok(next.events[0]!.cursor > first.cursor);
    });

    it('pages with since (exclusive) and limit, resuming from the returned cursor', async () => {
      const all = await storedEvents(server, 'busy');
      assert.equal(all.length, POLICY_CHANGES + 1);
      const seen: number[] = [];
      let since = 0;
      for (;;) {
        const p = await page(`/v0/spaces/busy/events?since=${since}&limit=7`);
        assert.ok(p.events.length <= 7);
        if (p.events.length === 0) {
          assert.equal(p.cursor, since);
          break;
        }
        assert.ok(p.events.every((e) => e.cursor > since));
        assert.equal(p.cursor, p.events[p.events.length - 1]!.cursor);
        seen.push(...p.events.map((e) => e.cursor));
        since = p.cursor;
      }
      assert.deepEqual(
        seen,
        all.map((e) => e.cursor),
      );
      // since is exclusive: starting at the third event's cursor skips the first three.
      const third = all[2]!.cursor;
      const rest = await page(`/v0/spaces/busy/events?since=${third}&limit=2`);
      assert.deepEqual(
        rest.events.map((e) => e.cursor),
        [all[3]!.cursor, all[4]!.cursor],
      );
    });

    it('defaults limit to 100 and allows at most 500', async () => {
      const all = await storedEvents(server, 'busy');
      const byDefault = await page('/v0/spaces/busy/events');
      assert.equal(byDefault.events.length, 100);
      assert.equal(byDefault.cursor, all[99]!.cursor);
      const max = await page('/v0/spaces/busy/events?limit=500');
      assert.equal(max.events.length, all.length);
      assert.equal((await page('/v0/spaces/busy/events?limit=1')).events.length, 1);
      for (const limit of ['501', '0', '-1', '1.5', 'ten', '']) {
        const res = await server.request('GET', `/v0/spaces/busy/events?limit=${limit}`);
        assert.equal(res.status, 422, `limit=${limit}`);
        assert.deepEqual(Object.keys(res.body), ['detail']);
      }
      for (const since of ['-1', '2.5', 'latest']) {
        assert.equal(await status(`/v0/spaces/busy/events?since=${since}`), 422, `since=${since}`);
      }
      assert.equal(await status('/v0/spaces/busy/events?after=1'), 422);
    });

    it('keeps since as the cursor of an empty page, and rejects a cursor beyond the newest event', async () => {
      const head = (await storedEvents(server)).at(-1)!.cursor;
      const busyLast = (await storedEvents(server, 'busy')).at(-1)!.cursor;
      const atHead = await page(`/v0/spaces/busy/events?since=${head}`);
      assert.deepEqual(atHead.events, []);
      assert.equal(atHead.cursor, head);
      // Past this Space's last event but not beyond the host's head: an empty page.
      assert.ok(busyLast < head);
      const busyPast = await page(`/v0/spaces/busy/events?since=${busyLast}`);
      assert.deepEqual(busyPast.events, []);
      assert.equal(busyPast.cursor, busyLast);

      for (const path of ['/v0/spaces/busy/events', '/v0/events']) {
        const res = await server.request('GET', `${path}?since=${head + 1}`, { token: STEWARD_KEY });
        assertError(res, 'cursor_beyond_head', path);
      }
      assert.equal((await page(`/v0/events?since=${head}`, STEWARD_KEY)).cursor, head);
    });

    it('never shows events of other Spaces; cursors are host-wide and sparse', async () => {
      for (let i = 0; i < 3; i++) {
        for (const slug of ['left', 'right']) {
          const res = await server.request('POST', '/v0/spaces', { token: alice.session, body: { slug: `${slug}-${i}`, name: `${slug} ${i}` } });
          assert.equal(res.status, 201);
        }
        // Interleave: the same member acts in both Spaces.
        for (const slug of ['busy', 'quiet']) {
          assert.equal((await server.request('POST', `/v0/spaces/${slug}/join`, { token: owner.session })).status, 200);
          assert.equal((await server.request('POST', `/v0/spaces/${slug}/leave`, { token: owner.session })).status, 200);
        }
      }
      const quiet = await page('/v0/spaces/quiet/events?limit=500');
      assert.ok(quiet.events.length >= 8);
      assert.ok(quiet.events.every((e) => e.space === 'quiet'));
      const stored = await storedEvents(server, 'quiet');
      assert.deepEqual(
        quiet.events.map((e) => e.cursor),
        stored.map((e) => e.cursor),
      );
      // Sparse: the cursors of one Space skip those of the others.
      const gaps = quiet.events.slice(1).filter((e, i) => e.cursor - quiet.events[i]!.cursor > 1);
      assert.ok(gaps.length > 0);
      const busy = await page('/v0/spaces/busy/events?limit=500');
      assert.ok(busy.events.every((e) => e.space === 'busy'));
      assert.equal((await page('/v0/spaces/left-0/events')).events.length, 1);
      assert.equal(await status('/v0/spaces/no-such-space/events'), 404);
    });

    it('serves the host-wide feed to the steward key and host-wide Owner/Hosts only', async () => {
      const stewardView = await page('/v0/events?limit=500', STEWARD_KEY);
      const types = new Set(stewardView.events.map((e) => e.type));
      for (const type of ['member_registered', 'role_assigned', 'space_proposed', 'space_review_policy_changed'] as const) {
        assert.ok(types.has(type), type);
      }
      const registered = stewardView.events.find((e) => e.type === 'member_registered' && e.payload.handle === 'alice')!;
      assert.equal(registered.space, null);
      assert.deepEqual(registered.subjects, ['member:alice']);
      const role = stewardView.events.find((e) => e.type === 'role_assigned' && e.payload.member === 'olivia')!;
      assert.equal(role.space, null);
      assert.equal(role.payload.role, 'owner');
      // Strictly increasing cursors, oldest first, every stored event once.
      const cursors = stewardView.events.map((e) => e.cursor);
      assert.ok(cursors.every((c, i) => i === 0 || c > cursors[i - 1]!));
      const stored = await storedEvents(server);
      assert.deepEqual(cursors, stored.slice(0, 500).map((e) => e.cursor));

      assert.equal((await page('/v0/events?limit=3', owner.session)).events.length, 3);
      assert.equal((await page('/v0/events?limit=3', host.session)).events.length, 3);

      const scoped = await server.human('sid', { role: 'host', space: 'busy' });
      const ownerKey = await seedMemberKey(server, owner.handle);
      assert.equal(await status('/v0/events'), 401);
      assert.equal(await status('/v0/events', 'not-the-steward-key'), 403);
      assert.equal(await status('/v0/events', alice.session), 403);
      assert.equal(await status('/v0/events', scoped.session), 403);
      // A host-wide Owner's own member key is a member credential, like their session.
      assert.equal(await status('/v0/events', ownerKey), 200);
      assert.equal(await status('/v0/events?limit=501', STEWARD_KEY), 422);
    });
  });
}
