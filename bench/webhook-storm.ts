// The webhook storm scenario of `npm run bench` (docs/webhooks.md, "Fair sending"):
// how long an unrelated subscriber waits for its wake while four members' receivers
// accept every wake and never answer it. Four members hold twenty subscriptions each
// (four endpoints of five), debounce 0, on receivers in this process that answer the
// challenge and then hold every request open until the host's time limit ends it;
// a fifth member's endpoint is the wake receiver (bench/wake-receiver.ts), which
// answers at once. Every subscription follows one channel of its own, so each post
// there wakes the control and every storm subscription not already holding a wake
// to send: the control's latency (post sent to wake received) is taken unloaded,
// then under the storm. Afterwards the endpoints are deleted, which cancels what
// they had not sent, so later scenarios start from a quiet queue.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Samples each way; under the storm, a host without fair sending takes up to its time limit (15 s) per sample. */
const SAMPLES = Number(process.env.ATRIUM_BENCH_STORM_SAMPLES ?? 10);
const WARM_UP = 3;
const STORM_MEMBERS = 4;
const ENDPOINTS_EACH = 4;
const SUBSCRIPTIONS_EACH = 20;
/** What the storm holds once it is on: four members' shares under the default caps (8 each); a host without caps holds more. */
const STORM_ON = 32;
const CHANNEL = 'storm';

/** The wake receiver as bench/run.ts runs it: a child process that reports when each subscription was woken. */
export interface WakeTimes {
  readonly url: string;
  readonly arrivals: Map<string, number[]>;
  until(done: () => boolean): Promise<void>;
  stop(): Promise<void>;
}

export interface StormSeed {
  /** The bench owner's session: it opens the scenario's two channels. */
  session: string;
  writers: string[];
  subscribers: string[];
  space: string;
}

export interface StormLatencies {
  unloaded: number[];
  storm: number[];
  /** The most storm attempts held open at once. */
  held: number;
}

/** The control's wake latencies unloaded and under the storm, or undefined for a checkout without webhooks. */
export async function webhookStorm(base: string, seeded: StormSeed, startReceiver: () => Promise<WakeTimes>): Promise<StormLatencies | undefined> {
  const contract = (await (await fetch(`${base}/v0/openapi.json`)).json()) as { paths: Record<string, unknown> };
  if (!contract.paths['/v0/spaces/{slug}/webhook-subscriptions'] || seeded.subscribers.length < STORM_MEMBERS + 1) return undefined;
  const silent = await SilentReceiver.start();
  const receiver = await startReceiver();
  const endpoints: Array<{ key: string; id: string }> = [];
  try {
    const call = async (key: string, method: string, path: string, body?: unknown): Promise<{ id: string }> => {
      const res = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
      return res.status === 204 ? { id: '' } : ((await res.json()) as { id: string });
    };
    const endpoint = async (key: string, url: string): Promise<string> => {
      const { id } = await call(key, 'POST', '/v0/webhook-endpoints', { url });
      endpoints.push({ key, id });
      await call(key, 'POST', `/v0/webhook-endpoints/${id}/verify`);
      return id;
    };
    const subscribe = async (key: string, endpointId: string): Promise<string> => {
      const collection = `/v0/spaces/${seeded.space}/webhook-subscriptions`;
      const sub = await call(key, 'POST', collection, { endpoint_id: endpointId, debounce_ms: 0, filter: { any: [{ subject: { channel: CHANNEL } }] } });
      await call(key, 'POST', `${collection}/${sub.id}/activate`);
      return sub.id;
    };
    const opened = await fetch(`${base}/v0/spaces/${seeded.space}/channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seeded.session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: CHANNEL }),
    });
    if (opened.status !== 201) throw new Error(`creating channel ${CHANNEL} answered ${opened.status}`);

    const controlKey = seeded.subscribers[STORM_MEMBERS]!;
    const control = await subscribe(controlKey, await endpoint(controlKey, receiver.url));
    let n = 0;
    const wake = async (): Promise<number> => {
      const heard = receiver.arrivals.get(control)?.length ?? 0;
      const sent = performance.timeOrigin + performance.now();
      await call(seeded.writers[1] ?? seeded.writers[0]!, 'POST', `/v0/spaces/${seeded.space}/channels/${CHANNEL}/messages`, { body: `post ${(n += 1)}` });
      await receiver.until(() => (receiver.arrivals.get(control)?.length ?? 0) > heard);
      return receiver.arrivals.get(control)![heard]! - sent;
    };
    for (let i = 0; i < WARM_UP; i++) await wake();
    const unloaded: number[] = [];
    for (let i = 0; i < SAMPLES; i++) unloaded.push(await wake());

    for (let m = 0; m < STORM_MEMBERS; m++) {
      const key = seeded.subscribers[m]!;
      const ids: string[] = [];
      for (let e = 0; e < ENDPOINTS_EACH; e++) ids.push(await endpoint(key, silent.url(`/storm-${m}/${e}`)));
      for (let s = 0; s < SUBSCRIPTIONS_EACH; s++) await subscribe(key, ids[s % ENDPOINTS_EACH]!);
    }
    // Not timed: the post that starts the storm. Then as many of its wakes as the host will send at once are held.
    await wake();
    await silent.until(() => silent.held >= STORM_ON);
    const storm: number[] = [];
    for (let i = 0; i < SAMPLES; i++) storm.push(await wake());
    return { unloaded, storm, held: silent.most };
  } finally {
    for (const { key, id } of endpoints) await fetch(`${base}/v0/webhook-endpoints/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    await silent.stop();
    await receiver.stop();
  }
}

/** Receivers that answer challenges and hold every other request open, counting how many they hold. */
class SilentReceiver {
  held = 0;
  most = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => this.receive(Buffer.concat(chunks), res));
  });

  static async start(): Promise<SilentReceiver> {
    const receiver = new SilentReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (done() ? resolve() : this.waiters.push(check));
      this.waiters.push(check);
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private receive(raw: Buffer, res: ServerResponse): void {
    const body = JSON.parse(raw.toString('utf8') || '{}') as { type?: string; challenge?: string };
    if (body.type === 'atrium.webhook.challenge') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
      return;
    }
    this.held += 1;
    this.most = Math.max(this.most, this.held);
    res.on('close', () => (this.held -= 1));
    for (const check of this.waiters.splice(0)) check();
  }
}
