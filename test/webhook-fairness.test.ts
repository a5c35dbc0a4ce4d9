import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as turn } from 'node:timers/promises';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { components } from '../src/client/openapi.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

type Delivery = components['schemas']['WebhookDelivery'];

/** Set below the defaults, so the test also shows the settings are read. */
const PER_ENDPOINT = 3;
const PER_MEMBER = 7;

/**
 * The storm: four members whose receivers accept every wake and never
 * answer it, twenty subscriptions each; two with one endpoint, two with four.
 * Without the caps, all eighty would be on the wire at once.
 */
const STORM = [
  { member: 'storm-a', endpoints: 1 },
  { member: 'storm-b', endpoints: 1 },
  { member: 'storm-c', endpoints: 4 },
  { member: 'storm-d', endpoints: 4 },
];
const SUBSCRIPTIONS_EACH = 20;
/** What the caps let the storm hold at once: per member, the lesser of its own cap and its endpoints' together. */
const HELD = STORM.reduce((sum, s) => sum + Math.min(PER_MEMBER, s.endpoints * PER_ENDPOINT), 0);

const ENV = {
  ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
  // Longer than this test takes: a storm attempt that ends did so because the host gave up on it.
  ATRIUM_WEBHOOK_TIMEOUT_MS: '30000',
  ATRIUM_WEBHOOK_RETRY_SCHEDULE: '',
  ATRIUM_WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(PER_ENDPOINT),
  ATRIUM_WEBHOOK_CONCURRENCY_PER_MEMBER: String(PER_MEMBER),
};

/**
 * Receivers that answer the challenge, so their endpoints verify, and then
 * accept every wake and never answer it, as a hung receiver does: each
 * attempt holds its connection until the host's time limit ends it. Paths are
 * `/<member>/<n>`, one per endpoint.
 */
class SilentReceivers {
  /** Wakes held now, by path. */
  readonly open = new Map<string, number>();
  /** The most wakes held at once, by `endpoint <path>` and by `member <handle>`. */
  readonly most = new Map<string, number>();
  /** Held wakes whose connection closed: the host's time limit ended them, or `answerAll`. */
  released = 0;
  private readonly unanswered: ServerResponse[] = [];
  private answering = false;
  private readonly waiting: Array<{ done: () => boolean; resolve: () => void }> = [];
  private server!: Server;
  private port = 0;

  static async start(): Promise<SilentReceivers> {
    const silent = new SilentReceivers();
    silent.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string; challenge?: string };
        if (body.type === 'atrium.webhook.challenge') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
          return;
        }
        if (silent.answering) {
          res.writeHead(202).end();
          return;
        }
        const path = req.url ?? '/';
        silent.unanswered.push(res);
        silent.open.set(path, (silent.open.get(path) ?? 0) + 1);
        res.on('close', () => {
          silent.open.set(path, silent.open.get(path)! - 1);
          silent.released += 1;
        });
        silent.note(`endpoint ${path}`, silent.open.get(path)!);
        const member = path.split('/')[1]!;
        silent.note(`member ${member}`, silent.heldBy(member));
        silent.wake();
      });
    });
    await new Promise<void>((resolve) => silent.server.listen(0, '127.0.0.1', resolve));
    silent.port = (silent.server.address() as AddressInfo).port;
    return silent;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Wakes held now, in all or by one member. */
  held(): number {
    return [...this.open.values()].reduce((a, b) => a + b, 0);
  }

  heldBy(member: string): number {
    return [...this.open].filter(([path]) => path.startsWith(`/${member}/`)).reduce((sum, [, n]) => sum + n, 0);
  }

  /** Resolves once `done` holds, checked as each wake arrives. */
  until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ done, resolve }));
  }

  /** The receivers recover: every held wake is answered 202, and every later one at once. */
  answerAll(): void {
    this.answering = true;
    for (const res of this.unanswered.splice(0)) res.writeHead(202).end();
  }

  /** Ends every held connection, so the host's attempts end at once. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private note(key: string, value: number): void {
    this.most.set(key, Math.max(this.most.get(key) ?? 0, value));
  }

  private wake(): void {
    for (const waiter of [...this.waiting]) {
      if (!waiter.done()) continue;
      this.waiting.splice(this.waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

/**
 * The storm and the control on `nodes` (one, or two sharing a PostgreSQL
 * database): posts go to the first node, any node may send.
 */
async function stormAndControl(t: TestContext, nodes: TestServer[]): Promise<void> {
  const server = nodes[0]!;
  const silent = await SilentReceivers.start();
  const receiver = await WebhookReceiver.start(server.url);
  try {
    const ada = await server.human('ada');
    const cora = await server.human('cora');
    await activeSpace(server, ada.session, 'plaza');
    for (const name of ['storm', 'calm']) {
      assert.equal((await server.request('POST', '/v0/spaces/plaza/channels', { token: ada.session, body: { name } })).status, 201);
    }

    const endpoint = async (token: string, url: string): Promise<string> => {
      const created = await server.request('POST', '/v0/webhook-endpoints', { token, body: { url } });
      assert.equal(created.status, 201, created.body?.detail);
      const verified = await server.request('POST', `/v0/webhook-endpoints/${created.body.id}/verify`, { token });
      assert.equal(verified.status, 200, verified.body?.detail);
      return created.body.id as string;
    };
    const subscribe = async (token: string, endpointId: string, channel: string): Promise<string> => {
      const collection = '/v0/spaces/plaza/webhook-subscriptions';
      const body = { endpoint_id: endpointId, debounce_ms: 0, filter: { any: [{ subject: { channel } }] } };
      const created = await server.request('POST', collection, { token, body });
      assert.equal(created.status, 201, created.body?.detail);
      assert.equal((await server.request('POST', `${collection}/${created.body.id}/activate`, { token })).status, 200);
      return created.body.id as string;
    };
    const post = async (channel: string, text: string): Promise<void> => {
      const res = await server.request('POST', `/v0/spaces/plaza/channels/${channel}/messages`, { token: ada.session, body: { body: text } });
      assert.equal(res.status, 201, res.body?.detail);
    };
    const history = async (subscription: string): Promise<Delivery[]> => {
      const res = await server.request('GET', `/v0/webhook-subscriptions/${subscription}/deliveries`, { token: cora.session });
      assert.equal(res.status, 200, res.body?.detail);
      return res.body.deliveries;
    };
    /** Posts in the control's channel; resolves with the ms from the post to its wake's arrival, once the host has recorded it delivered. */
    const wakeControl = async (subscription: string, n: number): Promise<number> => {
      const heard = receiver.at('/control').length;
      const sent = performance.now();
      await post('calm', `calm ${n}`);
      await receiver.waitFor('/control', heard + 1);
      const latency = performance.now() - sent;
      while ((await history(subscription)).filter((d) => d.status === 'delivered').length < n) await turn();
      return latency;
    };
    const withinCaps = (): void => {
      for (const [key, most] of silent.most) {
        assert.ok(most <= (key.startsWith('endpoint ') ? PER_ENDPOINT : PER_MEMBER), `${key} had ${most} attempts in flight at once`);
      }
    };

    const control = await subscribe(cora.session, await endpoint(cora.session, receiver.url('/control')), 'calm');
    const unloaded = await wakeControl(control, 1);

    for (const { member, endpoints } of STORM) {
      const { session } = await server.human(member);
      const ids: string[] = [];
      for (let n = 0; n < endpoints; n += 1) ids.push(await endpoint(session, silent.url(`/${member}/${n}`)));
      for (let n = 0; n < SUBSCRIPTIONS_EACH; n += 1) await subscribe(session, ids[n % endpoints]!, 'storm');
    }
    await post('storm', 'everyone wake up');
    // Every member's share is on the wire; the rest of the storm's eighty wakes wait their turn.
    await silent.until(() => silent.held() >= HELD);
    withinCaps();

    const stormy = await wakeControl(control, 2);
    assert.equal(silent.released, 0, "every storm attempt was still held when the control's wake was delivered");
    assert.equal(silent.held(), HELD, 'no more of the storm went out meanwhile');
    withinCaps();
    for (const { member } of STORM) assert.ok(silent.heldBy(member) > 0, `${member} has its share of the slots`);

    // What the caps held back was waiting, not failed: once the receivers answer, every storm wake is delivered at its first attempt.
    silent.answerAll();
    const db = server.app.ctx.db.kysely;
    const stormWakes = () =>
      db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
        .select(['d.status', 'd.attempts'])
        .where('s.owner_member', 'in', STORM.map((s) => s.member))
        .execute();
    while ((await stormWakes()).filter((d) => d.status === 'delivered').length < STORM.length * SUBSCRIPTIONS_EACH) await turn();
    assert.deepEqual(
      (await stormWakes()).map((d) => [d.status, d.attempts]),
      Array.from({ length: STORM.length * SUBSCRIPTIONS_EACH }, () => ['delivered', 1]),
    );
    withinCaps();
    t.diagnostic(`control wake: ${unloaded.toFixed(1)} ms unloaded, ${stormy.toFixed(1)} ms with ${HELD} storm attempts held (${nodes.length} node${nodes.length > 1 ? 's' : ''})`);
  } finally {
    await silent.stop();
    await receiver.stop();
  }
}

for (const backend of backends()) {
  describe(`fair webhook sending (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend, { env: ENV });
    });
    after(async () => {
      await server.stop();
    });

    it('keeps a storm of hung receivers within the per-endpoint and per-member caps, and wakes an unrelated subscriber while every storm attempt is still held', async (t) => {
      await stormAndControl(t, [server]);
    });
  });
}

if (backends().includes('postgres')) {
  describe('fair webhook sending, two nodes on one database (postgres)', () => {
    let nodes: TestServer[];
    before(async () => {
      const first = await startServer('postgres', { env: ENV });
      nodes = [first, await startServer('postgres', { env: ENV, shareWith: first })];
    });
    after(async () => {
      for (const node of nodes.slice(1)) await node.stop();
      await nodes[0]!.stop();
    });

    it('holds the caps across both nodes, whichever node claims', async (t) => {
      await stormAndControl(t, nodes);
    });
  });
}
