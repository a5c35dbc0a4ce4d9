import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { components } from '../src/client/openapi.js';
import { seedAgent } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { assertError } from './support/errors.js';
import type { ErrorCode } from '../src/shared/error-catalogue.js';

type Subscription = components['schemas']['WebhookSubscription'];

for (const backend of backends()) {
  describe(`webhook subscriptions (${backend})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let ada: { handle: string; session: string };
    let bea: { handle: string; session: string };
    let botKey: string;
    let adaEndpoint: string;
    let adaUnverified: string;
    let beaEndpoint: string;

    const endpoint = async (token: string, path: string, verify: boolean): Promise<string> => {
      const created = await server.request('POST', '/v0/webhook-endpoints', { token, body: { url: receiver.url(path) } });
      assert.equal(created.status, 201, created.body?.detail);
      if (verify) assert.equal((await server.request('POST', `/v0/webhook-endpoints/${created.body.id}/verify`, { token })).status, 200);
      return created.body.id as string;
    };

    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8', ATRIUM_WEBHOOK_TIMEOUT_MS: '2000' } });
      receiver = await WebhookReceiver.start(server.url);
      ada = await server.human('ada');
      bea = await server.human('bea');
      botKey = (await seedAgent(server, 'ada-bot', 'ada', 'active')).key;
      await activeSpace(server, ada.session, 'plaza');
      await activeSpace(server, ada.session, 'guild', 'request');
      await activeSpace(server, ada.session, 'vault', 'invite');
      adaEndpoint = await endpoint(ada.session, '/ada', true);
      adaUnverified = await endpoint(ada.session, '/ada-unverified', false);
      beaEndpoint = await endpoint(bea.session, '/bea', true);
    });
    after(async () => {
      await receiver.stop();
      await server.stop();
    });

    const createIn = (token: string, slug: string, body: unknown, headers?: Record<string, string>) =>
      server.request('POST', `/v0/spaces/${slug}/webhook-subscriptions`, { token, body, ...(headers ? { headers } : {}) });
    const createInbox = (token: string, body: unknown) => server.request('POST', '/v0/me/inbox-subscriptions', { token, body });

    it('creates Space and inbox subscriptions inactive at version 1', async () => {
      const filter = { any: [{ event_types: [{ prefix: 'task_' }, { exact: 'message_posted' }], subject: { channel: 'general' } }] };
      const created = await createIn(ada.session, 'plaza', { endpoint_id: adaEndpoint, debounce_ms: 0, filter });
      assert.equal(created.status, 201, created.body?.detail);
      const sub = created.body as Subscription;
      assert.match(sub.id, /^whsub_[a-z2-7]{26}$/);
      assert.deepEqual(
        { ...sub, id: undefined, created_ts: undefined, updated_ts: undefined },
        {
          id: undefined,
          scope: 'space_events',
          space: 'plaza',
          endpoint_id: adaEndpoint,
          owner_member: 'ada',
          filter,
          debounce_ms: 0,
          status: 'inactive',
          version: 1,
          activation_cursor: null,
          created_ts: undefined,
          updated_ts: undefined,
        },
      );
      assert.deepEqual((await server.request('GET', `/v0/spaces/plaza/webhook-subscriptions/${sub.id}`, { token: ada.session })).body, sub);

      const inbox = await createInbox(ada.session, { endpoint_id: adaUnverified });
      assert.equal(inbox.status, 201, inbox.body?.detail);
      // An inbox subscription names no Space and has no filter; the default debounce is a second.
      assert.equal('space' in inbox.body, false);
      assert.equal('filter' in inbox.body, false);
      assert.equal(inbox.body.scope, 'inbox_events');
      assert.equal(inbox.body.debounce_ms, 1000);
      const listed = await server.request('GET', '/v0/me/inbox-subscriptions', { token: ada.session });
      assert.deepEqual(listed.body.subscriptions.map((s: Subscription) => s.id), [inbox.body.id]);
      // Agents own subscriptions with their member key, to their own endpoints only.
      const botEndpoint = await endpoint(botKey, '/bot', false);
      assert.equal((await createIn(botKey, 'plaza', { endpoint_id: botEndpoint })).status, 201);
      assert.equal((await createIn(botKey, 'plaza', { endpoint_id: adaEndpoint })).status, 422);
    });

    it('refuses malformed requests with 422 and stores nothing', async () => {
      const before = (await server.request('GET', '/v0/spaces/plaza/webhook-subscriptions', { token: ada.session })).body.subscriptions.length;
      const bad: Array<[unknown, RegExp, ErrorCode?]> = [
        [{ endpoint_id: adaEndpoint, extra: 1 }, /extra|additional/i],
        [{ endpoint_id: adaEndpoint, debounce_ms: 60001 }, /debounce_ms/],
        [{ endpoint_id: adaEndpoint, debounce_ms: -1 }, /debounce_ms/],
        [{ endpoint_id: adaEndpoint, debounce_ms: 1.5 }, /debounce_ms/],
        [{ endpoint_id: adaEndpoint, filter: { any: [] } }, /filter/],
        [{ endpoint_id: adaEndpoint, filter: { any: [{ event_types: [{ suffix: 'x' }] }] } }, /filter/],
        [{ endpoint_id: adaEndpoint, filter: { any: [{ subject: { thread: 'x' } }] } }, /filter/],
        [{ endpoint_id: adaEndpoint, filter: { all: [] } }, /filter/],
        // What the contract's pattern on the event type strings says.
        [{ endpoint_id: adaEndpoint, filter: { any: [{ event_types: [{ exact: 'task_\u0000' }] }] } }, /filter\.any\[0\]\.event_types\[0\]\.exact must be UTF-8 text without NUL/],
        [{ endpoint_id: adaEndpoint, filter: { any: [{ event_types: [{ prefix: '\uD800' }] }] } }, /filter\.any\[0\]\.event_types\[0\]\.prefix must be UTF-8 text without NUL/],
        [{ endpoint_id: beaEndpoint }, /endpoint_id/, 'unknown_reference'],
        [{ endpoint_id: 'whep_nope' }, /endpoint_id/],
        [{}, /endpoint_id/],
      ];
      for (const [body, field, code = 'validation_failed'] of bad) {
        const res = await createIn(ada.session, 'plaza', body);
        assertError(res, code, JSON.stringify(body));
        // Which field is at fault is the point of a 422 here.
        assert.match(res.body.detail, field, JSON.stringify(body));
      }
      // An inbox subscription takes no Space and no filter.
      assert.equal((await createInbox(ada.session, { endpoint_id: adaEndpoint, filter: null })).status, 422);
      assert.equal((await createInbox(ada.session, { endpoint_id: adaEndpoint, space: 'plaza' })).status, 422);
      const after = (await server.request('GET', '/v0/spaces/plaza/webhook-subscriptions', { token: ada.session })).body.subscriptions.length;
      assert.equal(after, before);
    });

    it('follows the Space action gate: request and invite Spaces need admission', async () => {
      assert.equal((await createIn(bea.session, 'plaza', { endpoint_id: beaEndpoint })).status, 201);
      const guild = await createIn(bea.session, 'guild', { endpoint_id: beaEndpoint });
      assertError(guild, 'not_admitted');
      assert.equal((await createIn(bea.session, 'vault', { endpoint_id: beaEndpoint })).status, 403);
      assert.equal((await createIn(bea.session, 'nowhere', { endpoint_id: beaEndpoint })).status, 404);
      assert.equal((await server.request('POST', '/v0/spaces/plaza/webhook-subscriptions', { body: { endpoint_id: beaEndpoint } })).status, 401);
      // The steward key is no member: it owns no subscriptions.
      assert.equal((await createIn(STEWARD_KEY, 'plaza', { endpoint_id: beaEndpoint })).status, 403);
      // Admitted, the same request succeeds.
      assert.equal((await server.request('POST', '/v0/spaces/guild/join', { token: bea.session })).status, 202);
      assert.equal((await server.request('POST', '/v0/spaces/guild/join-requests/bea/admit', { token: STEWARD_KEY })).status, 200);
      assert.equal((await createIn(bea.session, 'guild', { endpoint_id: beaEndpoint })).status, 201);
    });

    it('activates once, only on an active endpoint, at the newest cursor', async () => {
      const onUnverified = (await createIn(ada.session, 'plaza', { endpoint_id: adaUnverified })).body as Subscription;
      const refused = await server.request('POST', `/v0/spaces/plaza/webhook-subscriptions/${onUnverified.id}/activate`, { token: ada.session });
      assertError(refused, 'endpoint_not_active');

      const sub = (await createIn(ada.session, 'plaza', { endpoint_id: adaEndpoint })).body as Subscription;
      const head = (await server.request('GET', '/v0/events?limit=1&since=0', { token: STEWARD_KEY })).body;
      assert.ok(head);
      const activated = await server.request('POST', `/v0/spaces/plaza/webhook-subscriptions/${sub.id}/activate`, { token: ada.session });
      assert.equal(activated.status, 200, activated.body?.detail);
      assert.equal(activated.body.status, 'active');
      assert.equal(activated.body.version, 1);
      const newest = await server.app.ctx.events.tail.databaseHead();
      assert.equal(activated.body.activation_cursor, newest);
      const again = await server.request('POST', `/v0/spaces/plaza/webhook-subscriptions/${sub.id}/activate`, { token: ada.session });
      assert.equal(again.status, 409);
      // Through the wrong collection, it does not exist.
      assert.equal((await server.request('POST', `/v0/me/inbox-subscriptions/${sub.id}/activate`, { token: ada.session })).status, 404);
      assert.equal((await server.request('GET', `/v0/spaces/guild/webhook-subscriptions/${sub.id}`, { token: ada.session })).status, 404);
    });

    it('patches given fields, raising the version only on a real change', async () => {
      const sub = (await createIn(ada.session, 'plaza', { endpoint_id: adaEndpoint })).body as Subscription;
      const path = `/v0/spaces/plaza/webhook-subscriptions/${sub.id}`;
      const early = await server.request('PATCH', path, { token: ada.session, body: { status: 'paused' } });
      assertError(early, 'subscription_inactive');
      assert.equal((await server.request('PATCH', path, { token: ada.session, body: { debounce_ms: 250 } })).body.version, 2);
      assert.equal((await server.request('PATCH', path, { token: ada.session, body: { debounce_ms: 250 } })).body.version, 2);
      const filter = { any: [{ subject: { task: 7 } }] };
      const filtered = await server.request('PATCH', path, { token: ada.session, body: { filter } });
      assert.deepEqual([filtered.body.version, filtered.body.filter], [3, filter]);
      const cleared = await server.request('PATCH', path, { token: ada.session, body: { filter: null } });
      assert.deepEqual([cleared.body.version, cleared.body.filter], [4, null]);
      assert.equal((await server.request('POST', `${path}/activate`, { token: ada.session })).status, 200);
      const paused = await server.request('PATCH', path, { token: ada.session, body: { status: 'paused' } });
      assert.deepEqual([paused.body.status, paused.body.version], ['paused', 5]);
      const resumed = await server.request('PATCH', path, { token: ada.session, body: { status: 'active' } });
      assert.deepEqual([resumed.body.status, resumed.body.version], ['active', 6]);
      for (const body of [{ status: 'inactive' }, { debounce_ms: 70000 }, { endpoint_id: adaEndpoint }, { filter: { any: 'x' } }]) {
        assert.equal((await server.request('PATCH', path, { token: ada.session, body })).status, 422, JSON.stringify(body));
      }
      // An inbox subscription has no filter to patch.
      const inbox = (await createInbox(ada.session, { endpoint_id: adaEndpoint })).body as Subscription;
      assert.equal((await server.request('PATCH', `/v0/me/inbox-subscriptions/${inbox.id}`, { token: ada.session, body: { filter: null } })).status, 422);
    });

    it('creates once per Idempotency-Key: a retried request gets the first answer, not a second subscription', async () => {
      const key = { 'idempotency-key': `retry-${backend}-0001` };
      const body = { endpoint_id: adaEndpoint, debounce_ms: 42 };
      const first = await createIn(ada.session, 'plaza', body, key);
      assert.equal(first.status, 201, first.body?.detail);
      const again = await createIn(ada.session, 'plaza', body, key);
      assert.deepEqual([again.status, again.body], [201, first.body]);
      const listed = (await server.request('GET', '/v0/spaces/plaza/webhook-subscriptions', { token: ada.session })).body.subscriptions as Subscription[];
      assert.equal(listed.filter((s) => s.debounce_ms === 42).length, 1);
      const other = await createIn(ada.session, 'plaza', { ...body, debounce_ms: 43 }, key);
      assertError(other, 'idempotency_key_reused');
    });

    it("is 404 to everyone but its owner, and after deletion", async () => {
      const sub = (await createIn(ada.session, 'plaza', { endpoint_id: adaEndpoint })).body as Subscription;
      const path = `/v0/spaces/plaza/webhook-subscriptions/${sub.id}`;
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['PATCH', '', { debounce_ms: 5 }],
        ['POST', '/activate', undefined],
        ['DELETE', '', undefined],
      ] as const) {
        const res = await server.request(method, path + suffix, { token: bea.session, ...(body ? { body } : {}) });
        assert.equal(res.status, 404, `${method} ${suffix}`);
      }
      assert.equal((await server.request('GET', `/v0/webhook-subscriptions/${sub.id}/deliveries`, { token: bea.session })).status, 404);
      assert.equal((await server.request('GET', path)).status, 401);
      assert.equal((await server.request('DELETE', path, { token: ada.session })).status, 204);
      assert.equal((await server.request('DELETE', path, { token: ada.session })).status, 404);
      assert.equal((await server.request('GET', path, { token: ada.session })).status, 404);
      assert.equal((await server.request('GET', `/v0/webhook-subscriptions/${sub.id}/deliveries`, { token: ada.session })).status, 404);
    });

    it('holds each member to the quotas, counting every status but not deleted ones', async () => {
      const carl = await server.human('carl');
      const carlEndpoint = await endpoint(carl.session, '/carl', false);
      const spaces = ['quota-1', 'quota-2', 'quota-3', 'quota-4', 'quota-5'];
      for (const slug of spaces) await activeSpace(server, carl.session, slug);
      const ids: string[] = [];
      for (let i = 0; i < 20; i += 1) ids.push((await createIn(carl.session, 'quota-1', { endpoint_id: carlEndpoint })).body.id);
      const perSpace = await createIn(carl.session, 'quota-1', { endpoint_id: carlEndpoint });
      assertError(perSpace, 'quota_reached');
      // Which of the three quotas was reached is the point.
      assert.match(perSpace.body.detail, /20 subscriptions per Space/);
      assert.equal((await server.request('DELETE', `/v0/spaces/quota-1/webhook-subscriptions/${ids[0]}`, { token: carl.session })).status, 204);
      assert.equal((await createIn(carl.session, 'quota-1', { endpoint_id: carlEndpoint })).status, 201);
      for (let i = 0; i < 20; i += 1) assert.equal((await createInbox(carl.session, { endpoint_id: carlEndpoint })).status, 201);
      const inbox = await createInbox(carl.session, { endpoint_id: carlEndpoint });
      assertError(inbox, 'quota_reached');
      assert.match(inbox.body.detail, /20 inbox subscriptions/);
      for (const slug of spaces.slice(1, 4)) for (let i = 0; i < 20; i += 1) assert.equal((await createIn(carl.session, slug, { endpoint_id: carlEndpoint })).status, 201);
      const total = await createIn(carl.session, 'quota-5', { endpoint_id: carlEndpoint });
      assertError(total, 'quota_reached');
      assert.match(total.body.detail, /100 webhook subscriptions/);
      // Deleting the endpoint deletes its subscriptions: they no longer count.
      assert.equal((await server.request('DELETE', `/v0/webhook-endpoints/${carlEndpoint}`, { token: carl.session })).status, 204);
      const fresh = await endpoint(carl.session, '/carl-2', false);
      assert.equal((await createIn(carl.session, 'quota-5', { endpoint_id: fresh })).status, 201);
      assert.deepEqual((await server.request('GET', '/v0/spaces/quota-1/webhook-subscriptions', { token: carl.session })).body.subscriptions, []);
    });
  });
}
