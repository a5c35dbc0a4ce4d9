import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hostEvents, lastCursor } from './support/events.js';
import { createResource, pinRowCounts } from './support/pins.js';
import { seedAgent, seedMemberKey, setMemberStatus, resourceId } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer, type Person } from './support/server.js';
import { assertError } from './support/errors.js';
import type { ErrorCode } from '../src/shared/error-catalogue.js';

/**
 * protocol: Pins and the front page. Setting, appending, who may,
 * the five-pin limit, no-ops, read-only Spaces, and concurrent appends.
 * Resources are created through `POST /v0/spaces/{slug}/resources`.
 */
for (const backend of backends()) {
  describe(`pins (${backend})`, () => {
    let server: TestServer;
    let owner: Person;
    let hank: Person;
    let ada: Person;
    let mia: Person;
    let forge: string[];
    let foreign: string;

    const post = (path: string, token?: string, body?: unknown) =>
      server.request('POST', path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
    const setPins = (slug: string, token: string | undefined, body: unknown) => post(`/v0/spaces/${slug}/pins`, token, body);
    const append = (slug: string, token: string | undefined, body: unknown) => post(`/v0/spaces/${slug}/pins/append`, token, body);
    const pinsOf = async (slug: string) => (await server.request('GET', `/v0/spaces/${slug}`)).body.pinned_resources as string[];
    const newSpace = async (slug: string, join_policy = 'open', approve = true) => {
      assert.equal((await post('/v0/spaces', owner.session, { slug, name: `Space ${slug}`, join_policy })).status, 201);
      if (approve) assert.equal((await post(`/v0/spaces/${slug}/approve`, STEWARD_KEY)).status, 200);
    };
    const assign = async (member: string, role: string, space: string) => {
      const res = await post('/v0/role-assignments', STEWARD_KEY, { member, role, space });
      assert.equal(res.status, 201, res.body?.detail);
      return res.body.id as string;
    };
    const resources = async (slug: string, n: number, prefix: string) => {
      const ids: string[] = [];
      for (let i = 1; i <= n; i++) ids.push(await createResource(server, slug, ada.session, `${prefix} ${i}`, `# ${prefix} ${i}\n`));
      return ids;
    };
    const pinEvents = async (since: number) =>
      (await hostEvents(server, since))
        .filter((e) => e.type === 'space_pins_updated')
        .map((e) => ({ space: e.space, actor: e.actor, subjects: e.subjects, payload: e.payload }));

    before(async () => {
      server = await startServer(backend);
      owner = await server.human('olga', { role: 'owner' });
      ada = await server.human('ada');
      await newSpace('forge');
      await newSpace('other');
      await newSpace('draft', 'open', false);
      await newSpace('attic', 'open', false);
      assert.equal((await post('/v0/spaces/attic/archive', STEWARD_KEY, {})).status, 200);
      hank = await server.human('hank', { role: 'host', space: 'forge' });
      mia = await server.human('mia', { role: 'maintainer', space: 'forge' });
      forge = await resources('forge', 7, 'Forge doc');
      foreign = (await resources('other', 1, 'Other doc'))[0]!;
    });
    after(() => server.stop());

    it('replaces, reorders and clears the list; pinned_resources shows the order; events carry both lists', async () => {
      const [a, b, c] = forge as [string, string, string];
      const since = await lastCursor(server);
      const set = await setPins('forge', owner.session, { resource_ids: [a, b, c], reason: 'README first' });
      assert.equal(set.status, 200, set.body?.detail);
      assert.deepEqual(set.body.pinned_resources, [a, b, c]);
      assert.deepEqual(await pinsOf('forge'), [a, b, c]);

      const reordered = await setPins('forge', STEWARD_KEY, { resource_ids: [c, a] });
      assert.deepEqual(reordered.body.pinned_resources, [c, a]);
      const cleared = await setPins('forge', hank.session, { resource_ids: [] });
      assert.equal(cleared.status, 200);
      assert.deepEqual(cleared.body.pinned_resources, []);

      assert.deepEqual(await pinEvents(since), [
        {
          space: 'forge',
          actor: 'olga',
          subjects: ['space:forge', `resource:${a}`, `resource:${b}`, `resource:${c}`],
          payload: { slug: 'forge', previous_resource_ids: [], resource_ids: [a, b, c], reason: 'README first' },
        },
        {
          space: 'forge',
          actor: null,
          subjects: ['space:forge', `resource:${b}`],
          payload: { slug: 'forge', previous_resource_ids: [a, b, c], resource_ids: [c, a], reason: '', via: 'steward_key' },
        },
        {
          space: 'forge',
          actor: 'hank',
          subjects: ['space:forge', `resource:${c}`, `resource:${a}`],
          payload: { slug: 'forge', previous_resource_ids: [c, a], resource_ids: [], reason: '' },
        },
      ]);
    });

    it('treats resubmitting the same order as a no-op: 200 with the Space, no event, nothing changed', async () => {
      const [a, b] = forge as [string, string];
      assert.equal((await setPins('forge', owner.session, { resource_ids: [a, b] })).status, 200);
      const before = await pinRowCounts(server);
      const again = await setPins('forge', owner.session, { resource_ids: [a, b], reason: 'again' });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.pinned_resources, [a, b]);
      assert.deepEqual(await pinRowCounts(server), before);
      // The same entries in another order are a change.
      const swapped = await setPins('forge', owner.session, { resource_ids: [b, a] });
      assert.deepEqual(swapped.body.pinned_resources, [b, a]);
      assert.equal((await setPins('forge', owner.session, { resource_ids: [] })).status, 200);
    });

    it('lets only an Owner/Host of the Space set pins, with their session or member key, or the steward key', async () => {
      const [a] = forge as [string];
      const ownerKey = await seedMemberKey(server, 'olga');
      const miaKey = await seedMemberKey(server, 'mia');
      const before = await pinRowCounts(server);
      const body = { resource_ids: [a] };
      const refusals: Array<[string, string | undefined, ErrorCode]> = [
        ['forge', undefined, 'credential_required'],
        ['forge', ada.session, 'role_required'],
        ['forge', mia.session, 'role_required'],
        ['forge', miaKey, 'role_required'],
        ['forge', 'sk_atrium_not-a-key', 'key_invalid'],
        // A host of forge only: Space-scoped powers stop at its border.
        ['other', hank.session, 'role_required'],
        ['no-such-space', owner.session, 'space_not_found'],
      ];
      for (const [slug, token, code] of refusals) assertError(await setPins(slug, token, body), code, `${slug} ${token}`);
      assert.deepEqual(await pinRowCounts(server), before);
      // The Owner's own member key is a member credential: it sets pins like their session.
      const byKey = await setPins('forge', ownerKey, body);
      assert.equal(byKey.status, 200, byKey.body?.detail);
      assert.deepEqual(byKey.body.pinned_resources, [a]);
      assert.equal((await setPins('forge', ownerKey, { resource_ids: [] })).status, 200);
    });

    it('refuses bad lists with 422 and writes nothing', async () => {
      const [a, b, c, d, e, f] = forge as [string, string, string, string, string, string];
      const before = await pinRowCounts(server);
      const cases: Array<[unknown, RegExp]> = [
        [{ resource_ids: [a, b, c, d, e, f] }, /resource_ids must NOT have more than 5 items/],
        [{ resource_ids: [a, b, a] }, /resource_ids must NOT have duplicate items/],
        [{ resource_ids: [a, resourceId('nope')] }, new RegExp(`^body\\.resource_ids\\[1\\]: no Resource ${resourceId('nope')} in Space forge$`)],
        [{ resource_ids: [foreign] }, new RegExp(`^body\\.resource_ids\\[0\\]: no Resource ${foreign} in Space forge$`)],
        [{ resource_ids: [''] }, /resource_ids\.0 must NOT have fewer than 1 characters/],
        [{ resource_ids: [42] }, /resource_ids\.0 must be string/],
        [{ resource_ids: a }, /resource_ids must be array/],
        [{}, /missing required field "resource_ids"/],
        [{ resource_ids: [], order: [] }, /unknown field "order"/],
        [{ resource_ids: [a], reason: 'x'.repeat(501) }, /reason must NOT have more than 500 characters/],
        [{ resource_ids: [`${a}\u0000`] }, /must be UTF-8 text without NUL/],
        // No repository is configured on this host (docs/configuration.md).
        [{ resource_ids: [a, 'repo:README.md'] }, /^body\.resource_ids\[1\]: repository pins are not available on this host \(ATRIUM_REPOSITORY_PATH is not set\)$/],
        [{ resource_ids: ['repo:../secrets.md'] }, /has a \. or \.\. segment/],
      ];
      for (const [body, detail] of cases) {
        const res = await setPins('forge', owner.session, body);
        assert.equal(res.status, 422, JSON.stringify(body));
        // The detail names the field at fault, and the rule or limit it breaks.
        assert.match(res.body.detail, detail, JSON.stringify(body));
      }
      assert.equal((await post('/v0/spaces/forge/pins', owner.session)).status, 422);
      assert.deepEqual(await pinRowCounts(server), before);
    });

    it('refuses pin changes in proposed and archived Spaces with 409', async () => {
      const before = await pinRowCounts(server);
      for (const slug of ['draft', 'attic']) {
        for (const res of [await setPins(slug, owner.session, { resource_ids: [] }), await append(slug, owner.session, { resource_id: forge[0] })]) {
          assertError(res, 'space_not_active', slug);
        }
      }
      assert.deepEqual(await pinRowCounts(server), before);
    });

    it('appends for the designated maintainer with any credential, keeps the order, and is a no-op for a pinned Resource', async () => {
      const [a, b, c] = forge as [string, string, string];
      assert.equal((await setPins('forge', owner.session, { resource_ids: [a] })).status, 200);
      const miaKey = await seedMemberKey(server, 'mia');
      const since = await lastCursor(server);
      const first = await append('forge', miaKey, { resource_id: b, reason: 'release notes' });
      assert.equal(first.status, 200, first.body?.detail);
      assert.deepEqual(first.body.pinned_resources, [a, b]);
      const second = await append('forge', mia.session, { resource_id: c });
      assert.deepEqual(second.body.pinned_resources, [a, b, c]);
      assert.deepEqual(await pinEvents(since), [
        {
          space: 'forge',
          actor: 'mia',
          subjects: ['space:forge', `resource:${b}`],
          payload: { slug: 'forge', previous_resource_ids: [a], resource_ids: [a, b], reason: 'release notes' },
        },
        {
          space: 'forge',
          actor: 'mia',
          subjects: ['space:forge', `resource:${c}`],
          payload: { slug: 'forge', previous_resource_ids: [a, b], resource_ids: [a, b, c], reason: '' },
        },
      ]);
      const before = await pinRowCounts(server);
      const again = await append('forge', miaKey, { resource_id: a });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.pinned_resources, [a, b, c]);
      assert.deepEqual(await pinRowCounts(server), before);
    });

    it('lets pin administrators append too, and refuses everyone else', async () => {
      const [a, b, c] = forge as [string, string, string];
      assert.equal((await setPins('forge', owner.session, { resource_ids: [] })).status, 200);
      assert.deepEqual((await append('forge', owner.session, { resource_id: a })).body.pinned_resources, [a]);
      assert.deepEqual((await append('forge', STEWARD_KEY, { resource_id: b })).body.pinned_resources, [a, b]);
      assert.deepEqual((await append('forge', hank.session, { resource_id: c })).body.pinned_resources, [a, b, c]);
      const before = await pinRowCounts(server);
      const refusals: Array<[string, string | undefined, ErrorCode]> = [
        ['forge', undefined, 'credential_required'],
        ['forge', ada.session, 'pin_append_forbidden'],
        // mia maintains forge, not other.
        ['other', mia.session, 'pin_append_forbidden'],
        ['no-such-space', mia.session, 'space_not_found'],
      ];
      for (const [slug, token, code] of refusals) assertError(await append(slug, token, { resource_id: forge[3] }), code, slug);
      assert.deepEqual(await pinRowCounts(server), before);
    });

    it('appends only Resources of the same Space, never repository paths (422)', async () => {
      const before = await pinRowCounts(server);
      const cases: Array<[unknown, ErrorCode, RegExp]> = [
        [{ resource_id: 'repo:README.md' }, 'validation_failed', /append takes a Resource of this Space, never a repository path/],
        [{ resource_id: foreign }, 'unknown_reference', new RegExp(`^body\\.resource_id: no Resource ${foreign} in Space forge$`)],
        [{ resource_id: resourceId('nope') }, 'unknown_reference', new RegExp(`no Resource ${resourceId('nope')} in Space forge`)],
        [{ resource_id: '' }, 'validation_failed', /resource_id must NOT have fewer than 1 characters/],
        [{ resource_id: forge[0], resource_ids: [forge[0]] }, 'validation_failed', /unknown field "resource_ids"/],
        [{ resource_id: forge[4], reason: 'x'.repeat(501) }, 'validation_failed', /reason must NOT have more than 500 characters/],
      ];
      for (const [body, code, detail] of cases) {
        const res = await append('forge', mia.session, body);
        // The detail names the field at fault, and the rule or limit it breaks.
        assert.match(assertError(res, code, JSON.stringify(body)), detail);
      }
      assert.deepEqual(await pinRowCounts(server), before);
    });

    it('refuses to append to a full list with 409, evicting nothing; a pinned Resource is still a no-op', async () => {
      const full = forge.slice(0, 5);
      assert.equal((await setPins('forge', owner.session, { resource_ids: full })).status, 200);
      const before = await pinRowCounts(server);
      for (const token of [mia.session, owner.session]) {
        const res = await append('forge', token, { resource_id: forge[5] });
        assertError(res, 'pin_limit_reached');
      }
      const pinned = await append('forge', mia.session, { resource_id: full[4] });
      assert.equal(pinned.status, 200);
      assert.deepEqual(pinned.body.pinned_resources, full);
      assert.deepEqual(await pinRowCounts(server), before);
      assert.equal((await setPins('forge', owner.session, { resource_ids: [] })).status, 200);
    });

    it("revokes a maintainer's append with the assignment, their removal, or their operator's removal or suspension", async () => {
      await newSpace('works');
      const docs = await resources('works', 5, 'Works doc');
      const bot = await seedAgent(server, 'ada-bot', 'ada', 'active');
      await assign('ada-bot', 'maintainer', 'works');
      const ian = await server.human('ian');
      const ianAssignment = await assign('ian', 'maintainer', 'works');
      assert.equal((await post('/v0/spaces/works/join', ada.session)).status, 200);
      assert.equal((await post('/v0/spaces/works/join', bot.key)).status, 200);
      assert.equal((await post('/v0/spaces/works/join', ian.session)).status, 200);

      // An agent maintainer appends with its own key; its operator gains nothing from it.
      assert.deepEqual((await append('works', bot.key, { resource_id: docs[0] })).body.pinned_resources, [docs[0]]);
      assert.equal((await append('works', ada.session, { resource_id: docs[1] })).status, 403);
      assert.equal((await append('works', ian.session, { resource_id: docs[1] })).status, 200);

      const before = await pinRowCounts(server);
      const since = await lastCursor(server);
      // The assignment revoked: ian is an ordinary member again.
      assert.equal((await post(`/v0/role-assignments/${ianAssignment}/revoke`, STEWARD_KEY)).status, 200);
      const revoked = await append('works', ian.session, { resource_id: docs[2] });
      assertError(revoked, 'pin_append_forbidden');

      // The operator suspended, then reinstated.
      await setMemberStatus(server, 'ada', 'suspended');
      const suspended = await append('works', bot.key, { resource_id: docs[2] });
      assertError(suspended, 'member_suspended');
      await setMemberStatus(server, 'ada', 'active');

      // The operator removed from the Space.
      assert.equal((await post('/v0/spaces/works/members/ada/remove', owner.session)).status, 200);
      const operatorRemoved = await append('works', bot.key, { resource_id: docs[2] });
      assertError(operatorRemoved, 'pin_append_forbidden');
      assert.equal((await post('/v0/spaces/works/invitations', owner.session, { member: 'ada' })).status, 201);
      assert.equal((await post('/v0/spaces/works/join', ada.session)).status, 200);
      // The maintainer itself removed.
      assert.equal((await post('/v0/spaces/works/members/ada-bot/remove', owner.session)).status, 200);
      const removed = await append('works', bot.key, { resource_id: docs[2] });
      assertError(removed, 'not_admitted');
      assert.deepEqual(await pinsOf('works'), [docs[0], docs[1]]);
      // Admission and role changes were written since, but no pin and no pin event.
      assert.equal((await pinRowCounts(server)).spaces, before.spaces);
      assert.deepEqual(await pinEvents(since), []);
    });

    it('lands every one of many concurrent appends, each event replacing the list before it', async () => {
      await newSpace('rush');
      const docs = await resources('rush', 7, 'Rush doc');
      const since = await lastCursor(server);
      const results = await Promise.all(docs.map((id, i) => append('rush', i % 2 ? owner.session : STEWARD_KEY, { resource_id: id })));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 409, 409]);
      for (const r of results.filter((r) => r.status === 409)) assertError(r, 'pin_limit_reached');
      const pinned = await pinsOf('rush');
      assert.equal(pinned.length, 5);
      assert.equal(new Set(pinned).size, 5);
      const events = (await pinEvents(since)).map((e) => e.payload as { previous_resource_ids: string[]; resource_ids: string[] });
      assert.equal(events.length, 5);
      let expected: string[] = [];
      for (const event of events) {
        assert.deepEqual(event.previous_resource_ids, expected);
        assert.equal(event.resource_ids.length, expected.length + 1);
        assert.deepEqual(event.resource_ids.slice(0, -1), expected);
        expected = event.resource_ids;
      }
      assert.deepEqual(expected, pinned);
    });
  });
}
