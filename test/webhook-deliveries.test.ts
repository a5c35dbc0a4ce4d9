import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { setImmediate as turn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { components } from '../src/client/openapi.js';
import { seedAgent, setMemberStatus } from './support/seed.js';
import { lastCursor } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { answerInTurn, WebhookReceiver } from './support/webhook-receiver.js';

type Delivery = components['schemas']['WebhookDelivery'];

/** A wake as a receiver reads it. */
interface Envelope {
  spec_version: string;
  id: string;
  type: string;
  issuer: string;
  subscription_id: string;
  subscription_version: number;
  space?: string;
  event_range: { after: number; through: number };
  created_ts: string;
}


for (const backend of backends()) {
  describe(`webhook deliveries (${backend})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let ada: { handle: string; session: string };
    let bea: { handle: string; session: string };
    let channelSeq = 0;

    before(async () => {
      server = await startServer(backend, {
        env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8', ATRIUM_WEBHOOK_TIMEOUT_MS: '2000', ATRIUM_WEBHOOK_RETRY_SCHEDULE: '0,0' },
      });
      receiver = await WebhookReceiver.start(server.url);
      ada = await server.human('ada');
      bea = await server.human('bea');
      await activeSpace(server, ada.session, 'plaza');
    });
    after(async () => {
      await receiver.stop();
      await server.stop();
    });

    /** A verified endpoint at `path` and an active subscription on it. */
    async function subscribe(
      token: string,
      path: string,
      opts: { space?: string; debounce_ms?: number; filter?: unknown; inbox?: boolean; at?: WebhookReceiver } = {},
    ): Promise<{ endpoint: string; subscription: string; collection: string }> {
      const endpoint = await server.request('POST', '/v0/webhook-endpoints', { token, body: { url: (opts.at ?? receiver).url(path) } });
      assert.equal(endpoint.status, 201, endpoint.body?.detail);
      assert.equal((await server.request('POST', `/v0/webhook-endpoints/${endpoint.body.id}/verify`, { token })).status, 200);
      const collection = opts.inbox ? '/v0/me/inbox-subscriptions' : `/v0/spaces/${opts.space ?? 'plaza'}/webhook-subscriptions`;
      const body = { endpoint_id: endpoint.body.id, debounce_ms: opts.debounce_ms ?? 0, ...(opts.filter ? { filter: opts.filter } : {}) };
      const created = await server.request('POST', collection, { token, body });
      assert.equal(created.status, 201, created.body?.detail);
      const activated = await server.request('POST', `${collection}/${created.body.id}/activate`, { token });
      assert.equal(activated.status, 200, activated.body?.detail);
      return { endpoint: endpoint.body.id, subscription: created.body.id, collection };
    }

    async function channel(space = 'plaza'): Promise<string> {
      const name = `room-${(channelSeq += 1)}`;
      const res = await server.request('POST', `/v0/spaces/${space}/channels`, { token: ada.session, body: { name } });
      assert.equal(res.status, 201, res.body?.detail);
      return name;
    }

    async function post(token: string, name: string, body: string, space = 'plaza'): Promise<{ id: string }> {
      const res = await server.request('POST', `/v0/spaces/${space}/channels/${name}/messages`, { token, body: { body } });
      assert.equal(res.status, 201, res.body?.detail);
      return res.body;
    }

    const deliveries = async (token: string, subscription: string): Promise<Delivery[]> => {
      const res = await server.request('GET', `/v0/webhook-subscriptions/${subscription}/deliveries`, { token });
      assert.equal(res.status, 200, res.body?.detail);
      return res.body.deliveries;
    };

    /** Re-reads the history until `done` holds: the receiver answers before the host records the attempt. */
    async function historyUntil(token: string, subscription: string, done: (d: Delivery[]) => boolean): Promise<Delivery[]> {
      for (;;) {
        const list = await deliveries(token, subscription);
        if (done(list)) return list;
        await turn();
      }
    }

    it('wakes a subscriber with a signed range whose feed read holds the message', async () => {
      const room = await channel();
      const { subscription } = await subscribe(ada.session, '/wake');
      const message = await post(bea.session, room, 'hello there');
      const [wake] = await receiver.waitFor('/wake', 2);
      const request = receiver.at('/wake')[1]!;
      assert.ok(wake);
      assert.equal(request.signatureValid, true);
      const body = request.body as unknown as Envelope;
      assert.deepEqual(Object.keys(body), ['spec_version', 'id', 'type', 'issuer', 'subscription_id', 'subscription_version', 'space', 'event_range', 'created_ts']);
      assert.equal(body.spec_version, 'atrium.webhooks/1');
      assert.match(body.id, /^whd_/);
      assert.equal(request.headers['webhook-id'], body.id);
      assert.equal(body.type, 'atrium.events.available');
      assert.equal(body.issuer, server.url);
      assert.deepEqual([body.subscription_id, body.subscription_version, body.space], [subscription, 1, 'plaza']);
      const page = await server.request('GET', `/v0/spaces/plaza/events?since=${body.event_range.after}`, { token: ada.session });
      const events = page.body.events.filter((e: { cursor: number }) => e.cursor <= body.event_range.through);
      assert.ok(events.some((e: { payload: { message_id?: string } }) => e.payload.message_id === message.id));
      assert.equal(events.at(-1).cursor, body.event_range.through);
      const [recorded] = await historyUntil(ada.session, subscription, (d) => d[0]?.status === 'delivered');
      assert.equal(recorded!.id, body.id);
      assert.deepEqual(recorded!.attempts.map((a) => [a.attempt, a.response_status, a.error]), [[1, 200, null]]);
    });

    it('keeps its connection to a receiver between wakes', async () => {
      // A receiver of its own: only this subscription's wakes go to its origin.
      const own = await WebhookReceiver.start(server.url);
      try {
        const room = await channel();
        await subscribe(ada.session, '/kept', { at: own, filter: { any: [{ subject: { channel: room } }] } });
        await post(bea.session, room, 'first');
        await own.waitFor('/kept', 2);
        await post(bea.session, room, 'second');
        const [challenge, first, second] = await own.waitFor('/kept', 3);
        assert.equal(first!.signatureValid && second!.signatureValid, true);
        // The challenge went on a connection of its own; the two wakes on one kept connection.
        assert.equal(second!.remotePort, first!.remotePort);
        assert.notEqual(challenge!.remotePort, first!.remotePort);
      } finally {
        await own.stop();
      }
    });

    it('coalesces posts inside the debounce window into one wake, and the next range starts where it ended', async () => {
      const room = await channel();
      const { subscription } = await subscribe(ada.session, '/debounce', { debounce_ms: 1500, filter: { any: [{ subject: { channel: room } }] } });
      const wakes: { ids: string[]; times: number[] }[] = [];
      let through: number | undefined;
      /** The next wake's posts and their events' times; each range must start where the last ended. */
      const nextWake = async () => {
        const wake = (await receiver.waitFor('/debounce', wakes.length + 2))[wakes.length + 1]!.body as unknown as Envelope;
        if (through !== undefined) assert.equal(wake.event_range.after, through, 'the next range starts where the last ended');
        through = wake.event_range.through;
        const page = await server.request('GET', `/v0/spaces/plaza/events?since=${wake.event_range.after}&limit=500`, { token: ada.session });
        const posts = (page.body.events as { cursor: number; created_ts: string; payload: { message_id?: string } }[]).filter(
          (e) => e.cursor <= wake.event_range.through && e.payload.message_id !== undefined,
        );
        wakes.push({ ids: posts.map((e) => e.payload.message_id!), times: posts.map((e) => Date.parse(e.created_ts)) });
      };
      const seen = () => wakes.flatMap((w) => w.ids);

      const burst: string[] = [];
      for (let i = 0; i < 10; i += 1) burst.push((await post(bea.session, room, `burst ${i}`)).id);
      while (seen().length < burst.length) await nextWake();
      assert.deepEqual(seen(), burst, 'every post rides exactly one wake, in order');
      // The window opens with the first qualifying event and closes 1500 ms after
      // it: every post made inside it rides the first wake. A loaded machine may
      // stretch the burst past the window, so which posts were inside is read
      // from the events' own times rather than assumed.
      const times = wakes.flatMap((w) => w.times);
      const inside = burst.filter((_, i) => times[i]! < times[0]! + 1500);
      assert.deepEqual(wakes[0]!.ids.slice(0, inside.length), inside, 'the first wake holds every post made inside its window');

      const burstWakes = wakes.length;
      const last = (await post(bea.session, room, 'one more')).id;
      await nextWake();
      assert.deepEqual(wakes.at(-1)!.ids, [last]);
      assert.equal((await deliveries(ada.session, subscription)).length, burstWakes + 1);
    });

    it('retries a failing receiver with the same id and body, then records every attempt', async () => {
      receiver.behaviours.set('/flaky', answerInTurn([500, 503]));
      const room = await channel();
      const { subscription } = await subscribe(ada.session, '/flaky', { filter: { any: [{ subject: { channel: room } }] } });
      await post(bea.session, room, 'try again');
      const requests = (await receiver.waitFor('/flaky', 4)).slice(1);
      assert.equal(new Set(requests.map((r) => r.raw.toString('utf8'))).size, 1);
      assert.equal(new Set(requests.map((r) => r.headers['webhook-id'])).size, 1);
      assert.ok(requests.every((r) => r.signatureValid));
      const [delivery] = await historyUntil(ada.session, subscription, (d) => d[0]?.status === 'delivered');
      assert.deepEqual(
        delivery!.attempts.map((a) => [a.attempt, a.response_status]),
        [
          [1, 500],
          [2, 503],
          [3, 202],
        ],
      );
      assert.equal(delivery!.next_attempt_ts, null);
    });

    it('marks a dead letter after the schedule runs out, and replays it with the same id and body', async () => {
      receiver.behaviours.set('/dead', answerInTurn([500, 500, 500]));
      const room = await channel();
      const { subscription } = await subscribe(ada.session, '/dead', { filter: { any: [{ subject: { channel: room } }] } });
      await post(bea.session, room, 'nobody home');
      await receiver.waitFor('/dead', 4);
      const [dead] = await historyUntil(ada.session, subscription, (d) => d[0]?.status === 'dead');
      assert.equal(dead!.attempts.length, 3);
      // Someone else's delivery, and a delivery that is not dead, cannot be replayed.
      assert.equal((await server.request('POST', `/v0/webhook-deliveries/${dead!.id}/replay`, { token: bea.session })).status, 404);
      const replayed = await server.request('POST', `/v0/webhook-deliveries/${dead!.id}/replay`, { token: ada.session });
      assert.equal(replayed.status, 202, replayed.body?.detail);
      assert.equal(replayed.body.status, 'pending');
      const again = (await receiver.waitFor('/dead', 5))[4]!;
      assert.equal(again.raw.toString('utf8'), receiver.at('/dead')[1]!.raw.toString('utf8'));
      assert.equal(again.headers['webhook-id'], dead!.id);
      const [delivered] = await historyUntil(ada.session, subscription, (d) => d[0]?.status === 'delivered');
      assert.deepEqual(delivered!.attempts.map((a) => a.attempt), [1, 2, 3, 4]);
      const twice = await server.request('POST', `/v0/webhook-deliveries/${dead!.id}/replay`, { token: ada.session });
      assert.equal(twice.status, 409);
    });

    it('stops at a 410: the delivery is dead, the endpoint disabled until verified again, then one catch-up wake', async () => {
      receiver.behaviours.set('/gone', answerInTurn([410]));
      const room = await channel();
      const { endpoint, subscription } = await subscribe(ada.session, '/gone', { filter: { any: [{ subject: { channel: room } }] } });
      await post(bea.session, room, 'first');
      await receiver.waitFor('/gone', 2);
      const [dead] = await historyUntil(ada.session, subscription, (d) => d[0]?.status === 'dead');
      assert.equal(dead!.attempts.length, 1);
      assert.equal((await server.request('GET', `/v0/webhook-endpoints/${endpoint}`, { token: ada.session })).body.status, 'disabled');
      // While disabled nothing is built; a control subscription shows the projector has passed the posts.
      const control = await subscribe(ada.session, '/gone-control', { filter: { any: [{ subject: { channel: room } }] } });
      await post(bea.session, room, 'second');
      await post(bea.session, room, 'third');
      await receiver.waitFor('/gone-control', 2);
      assert.equal((await deliveries(ada.session, subscription)).length, 1);
      assert.equal((await server.request('POST', `/v0/webhook-deliveries/${dead!.id}/replay`, { token: ada.session })).status, 409);
      // Verified again: one catch-up wake for what qualified meanwhile.
      assert.equal((await server.request('POST', `/v0/webhook-endpoints/${endpoint}/verify`, { token: ada.session })).status, 200);
      const requests = await receiver.waitFor('/gone', 4);
      const catchUp = requests[3]!.body as { event_range: { after: number; through: number } };
      assert.equal(catchUp.event_range.after, (requests[1]!.body as { event_range: { through: number } }).event_range.through);
      assert.ok(control.subscription);
    });

    it('sends nothing while paused, and one catch-up wake with the new version on resume', async () => {
      const room = await channel();
      const filter = { any: [{ subject: { channel: room } }] };
      const { subscription, collection } = await subscribe(ada.session, '/paused', { filter });
      const control = await subscribe(ada.session, '/paused-control', { filter });
      assert.equal((await server.request('PATCH', `${collection}/${subscription}`, { token: ada.session, body: { status: 'paused' } })).body.version, 2);
      await post(bea.session, room, 'while paused 1');
      await post(bea.session, room, 'while paused 2');
      // The two posts may reach the control in one wake or two: wait until its wakes cover the newest event.
      const head = await lastCursor(server);
      const controlThrough = () => Math.max(0, ...receiver.at('/paused-control').slice(1).map((r) => (r.body as { event_range: { through: number } }).event_range.through));
      await receiver.until(() => controlThrough() >= head);
      assert.deepEqual(await deliveries(ada.session, subscription), []);
      const resumed = await server.request('PATCH', `${collection}/${subscription}`, { token: ada.session, body: { status: 'active' } });
      assert.equal(resumed.body.version, 3);
      const catchUp = (await receiver.waitFor('/paused', 2))[1]!.body as { subscription_version: number; event_range: { after: number; through: number } };
      assert.equal(catchUp.subscription_version, 3);
      assert.equal(catchUp.event_range.after, resumed.body.activation_cursor);
      assert.equal(catchUp.event_range.through, controlThrough());
      assert.ok(control);
    });

    it('cancels unsent work when the subscription is deleted, and an attempt already on the wire does not revive it', async () => {
      // The receiver holds the first wake unanswered: its attempt is on the wire while the subscription goes.
      const held: ServerResponse[] = [];
      receiver.behaviours.set('/deleted', (req, res) => {
        if (req.body.type === 'atrium.webhook.challenge') return answerInTurn([])(req, res);
        held.push(res);
      });
      const room = await channel();
      const { subscription, collection } = await subscribe(ada.session, '/deleted', { filter: { any: [{ subject: { channel: room } }] } });
      await post(bea.session, room, 'soon gone');
      await receiver.waitFor('/deleted', 2);
      assert.equal((await server.request('DELETE', `${collection}/${subscription}`, { token: ada.session })).status, 204);
      const db = server.app.ctx.db.kysely;
      const [delivery] = await db.selectFrom('webhook_deliveries').select(['id', 'status']).where('subscription_id', '=', subscription).execute();
      assert.equal(delivery!.status, 'cancelled');
      // The receiver answers at last: the attempt is history, the delivery stays cancelled.
      for (const res of held) res.writeHead(202).end();
      while ((await db.selectFrom('webhook_attempts').select('attempt').where('delivery_id', '=', delivery!.id).execute()).length === 0) await turn();
      const after = await db.selectFrom('webhook_deliveries').select('status').where('id', '=', delivery!.id).executeTakeFirstOrThrow();
      assert.equal(after.status, 'cancelled');
    });

    it('sends nothing about a Space once it is archived', async () => {
      // Only a proposed Space can be archived; a member may subscribe to it before that.
      assert.equal((await server.request('POST', '/v0/spaces', { token: ada.session, body: { slug: 'attic', name: 'The attic' } })).status, 201);
      const attic = await subscribe(bea.session, '/attic', { space: 'attic' });
      assert.equal((await server.request('POST', '/v0/spaces/attic/archive', { token: STEWARD_KEY, body: { reason: 'never used' } })).status, 200);
      // A control subscription elsewhere is woken by a later event: the projector has passed the archive.
      const room = await channel();
      await subscribe(ada.session, '/attic-control', { filter: { any: [{ subject: { channel: room } }] } });
      await post(bea.session, room, 'after the archive');
      await receiver.waitFor('/attic-control', 2);
      assert.deepEqual(await deliveries(bea.session, attic.subscription), []);
      assert.equal(receiver.at('/attic').length, 1, 'only the challenge reached the archived Space\'s subscriber');
    });

    it('stops sending to a suspended owner, and to a member removed from the Space', async () => {
      const carl = await server.human('carl');
      await activeSpace(server, ada.session, 'guild', 'request');
      for (const member of [carl, ada]) {
        assert.equal((await server.request('POST', '/v0/spaces/guild/join', { token: member.session })).status, 202);
        assert.equal((await server.request('POST', `/v0/spaces/guild/join-requests/${member.handle}/admit`, { token: STEWARD_KEY })).status, 200);
      }
      const room = await channel('guild');
      const filter = { any: [{ subject: { channel: room } }] };
      const carlSub = await subscribe(carl.session, '/carl', { space: 'guild', filter });
      const control = await subscribe(ada.session, '/guild-control', { space: 'guild', filter });
      await post(ada.session, room, 'carl may hear this', 'guild');
      await receiver.waitFor('/carl', 2);
      assert.equal((await server.request('POST', '/v0/spaces/guild/members/carl/remove', { token: STEWARD_KEY })).status, 200);
      await post(ada.session, room, 'carl may not', 'guild');
      await receiver.waitFor('/guild-control', 3);
      assert.equal((await deliveries(carl.session, carlSub.subscription)).length, 1);
      // A suspended owner: nothing new either (their credential no longer reads the history; the database does).
      const dan = await server.human('dan');
      await server.request('POST', '/v0/spaces/plaza/channels', { token: ada.session, body: { name: 'lobby-dan' } });
      const danSub = await subscribe(dan.session, '/dan', { filter: { any: [{ subject: { channel: 'lobby-dan' } }] } });
      await setMemberStatus(server, 'dan', 'suspended');
      const danControl = await subscribe(ada.session, '/dan-control', { filter: { any: [{ subject: { channel: 'lobby-dan' } }] } });
      await post(bea.session, 'lobby-dan', 'dan is away');
      await receiver.waitFor('/dan-control', 2);
      const danRows = await server.app.ctx.db.kysely.selectFrom('webhook_deliveries').select('id').where('subscription_id', '=', danSub.subscription).execute();
      assert.deepEqual(danRows, []);
      assert.ok(control && danControl);
    });

    it("wakes an inbox subscriber for its own mentions and direct messages only, with no Space", async () => {
      const eve = await server.human('eve');
      const bot = await seedAgent(server, 'eve-bot', 'eve', 'active');
      const { subscription } = await subscribe(eve.session, '/eve-inbox', { inbox: true });
      const botSub = await subscribe(bot.key, '/bot-inbox', { inbox: true });
      const room = await channel();
      await post(bea.session, room, 'nothing for eve here');
      await post(bea.session, room, 'hey @eve-bot, and not your operator');
      const dm = await server.request('POST', '/v0/spaces/plaza/direct-messages', { token: bea.session, body: { to: 'eve', body: 'psst @eve' } });
      assert.equal(dm.status, 201, dm.body?.detail);
      const wakes = await receiver.waitFor('/eve-inbox', 2);
      const wake = wakes[1]!.body as unknown as Envelope;
      assert.equal(wake.type, 'atrium.inbox_events.available');
      assert.equal('space' in wake, false);
      assert.equal(wake.subscription_id, subscription);
      const inbox = await server.request('GET', `/v0/me/inbox-events?since=${wake.event_range.after}`, { token: eve.session });
      assert.deepEqual(
        inbox.body.events.filter((e: { cursor: number }) => e.cursor <= wake.event_range.through).map((e: { payload: { body: string } }) => e.payload.body),
        ['psst @eve'],
      );
      const botWake = (await receiver.waitFor('/bot-inbox', 2))[1]!.body as unknown as Envelope;
      assert.equal(botWake.subscription_id, botSub.subscription);
    });
  });
}
