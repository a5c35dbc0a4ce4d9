import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createContext } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startSession } from '../src/identity/sessions.js';
import { createHuman } from '../src/members/service.js';
import { assignRole } from '../src/roles/service.js';
import { createLogger } from '../src/logger.js';
import { CliRunner, type CliProcess } from './support/cli.js';
import { backends, freePort, withPg, withSearchPath } from './support/server.js';
import { WebhookReceiver, type ReceivedRequest } from './support/webhook-receiver.js';

/**
 * Deliveries as an operator's processes live them (docs/webhooks.md,
 * "Crashes and several nodes"): real `atrium serve` processes, killed with
 * SIGKILL while wakes are owed and while one is on the wire, then started
 * again; and, on PostgreSQL, two nodes sharing the work under concurrent
 * writes. Every owed wake must arrive, each delivery id once unless its
 * attempt was cut off, and a subscription's ranges must be contiguous and
 * cover every event posted.
 */

const STEWARD = 'steward-webhook-crash-0123456789';
const SEALING_KEY = randomBytes(32).toString('base64url');

interface Wake {
  id: string;
  subscription_id: string;
  event_range: { after: number; through: number };
}

function wakesOf(requests: ReceivedRequest[], subscription: string): Wake[] {
  return requests.map((r) => r.body as unknown as Wake & { type: string }).filter((b) => b.type !== 'atrium.webhook.challenge' && b.subscription_id === subscription);
}

/** Distinct wakes by id, in the order first received; each id's body must be the same bytes every time. */
function distinct(requests: ReceivedRequest[], subscription: string): Wake[] {
  const bodies = new Map<string, string>();
  for (const r of requests) {
    const body = r.body as unknown as Wake & { type: string };
    if (body.type === 'atrium.webhook.challenge' || body.subscription_id !== subscription) continue;
    const raw = r.raw.toString('utf8');
    assert.equal(bodies.get(body.id) ?? raw, raw, `delivery ${body.id} is sent with the same body every time`);
    bodies.set(body.id, raw);
  }
  return [...bodies.values()].map((raw) => JSON.parse(raw) as Wake);
}

/** The wakes cover (after, through] contiguously, from `from` to at least `to`. */
function covers(wakes: Wake[], from: number, to: number): boolean {
  let at = from;
  for (const wake of [...wakes].sort((a, b) => a.event_range.after - b.event_range.after)) {
    if (wake.event_range.after !== at) return false;
    at = wake.event_range.through;
  }
  return at >= to;
}

for (const backend of backends()) {
  describe(`webhook deliveries through crashes and nodes (${backend})`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atrium-webhook-crash-'));
    const schema = `atrium_whcrash_${randomBytes(6).toString('hex')}`;
    const databaseUrl = backend === 'postgres' ? withSearchPath(process.env.ATRIUM_TEST_DATABASE_URL!, schema) : `sqlite:${join(dataDir, 'atrium.db')}`;
    const cli = new CliRunner('http://127.0.0.1:1');
    const nodes: Array<{ url: string; proc: CliProcess } | undefined> = [undefined, undefined];
    let receiver: WebhookReceiver;
    let owner = '';
    let writer = '';

    const ports: number[] = [];
    /** A node keeps its address across restarts, as behind a load balancer: the receiver fetches keys from it. */
    const startNode = async (slot: number): Promise<void> => {
      const port = (ports[slot] ??= await freePort());
      const proc = cli.spawn(['serve'], {
        ATRIUM_DATABASE_URL: databaseUrl,
        ATRIUM_DATA_DIR: join(dataDir, `node-${slot}`),
        ATRIUM_WEBHOOK_SEALING_KEY: SEALING_KEY,
        ATRIUM_HOST: '127.0.0.1',
        ATRIUM_PORT: String(port),
        ATRIUM_BASE_URL: `http://127.0.0.1:${port}`,
        ATRIUM_STEWARD_KEY: STEWARD,
        ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
        // A cut-off attempt's claim lapses a second after its time limit, and then any node sends it again.
        ATRIUM_WEBHOOK_TIMEOUT_MS: '1000',
        ATRIUM_WEBHOOK_RETRY_SCHEDULE: '0.1,0.1,0.1',
        ATRIUM_LOG_LEVEL: 'error',
      });
      await proc.waitForStdout(/Atrium is listening/);
      nodes[slot] = { url: `http://127.0.0.1:${port}`, proc };
    };

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of many shapes, checked field by field
    async function call(slot: number, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
      const node = nodes[slot]!;
      const res = await fetch(node.url + path, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    }

    async function subscribe(slot: number, path: string, debounce_ms: number): Promise<{ id: string; activation_cursor: number }> {
      const endpoint = await call(slot, 'POST', '/v0/webhook-endpoints', owner, { url: receiver.url(path) });
      assert.equal(endpoint.status, 201, endpoint.body?.detail);
      assert.equal((await call(slot, 'POST', `/v0/webhook-endpoints/${endpoint.body.id}/verify`, owner)).status, 200);
      const sub = await call(slot, 'POST', '/v0/spaces/hall/webhook-subscriptions', owner, { endpoint_id: endpoint.body.id, debounce_ms });
      assert.equal(sub.status, 201, sub.body?.detail);
      const active = await call(slot, 'POST', `/v0/spaces/hall/webhook-subscriptions/${sub.body.id}/activate`, owner);
      assert.equal(active.status, 200, active.body?.detail);
      return active.body;
    }

    async function post(slot: number, body: string): Promise<number> {
      const res = await call(slot, 'POST', '/v0/spaces/hall/channels/general/messages', writer, { body });
      assert.equal(res.status, 201, res.body?.detail);
      const page = await call(slot, 'GET', `/v0/spaces/hall/events?since=0&limit=500`);
      return page.body.events.find((e: { payload: { message_id?: string } }) => e.payload.message_id === res.body.id).cursor as number;
    }

    before(async () => {
      if (backend === 'postgres') await withPg(process.env.ATRIUM_TEST_DATABASE_URL!, (c) => c.query(`create schema ${schema}`));
      const config = loadConfig({ ATRIUM_DATABASE_URL: databaseUrl, ATRIUM_DATA_DIR: dataDir, ATRIUM_WEBHOOK_SEALING_KEY: SEALING_KEY });
      config.dataDir = dataDir;
      const ctx = await createContext(config, { log: createLogger('silent') });
      try {
        [owner, writer] = await ctx.db.transaction(async (tx) => {
          const made: string[] = [];
          for (const handle of ['crash-owner', 'crash-writer']) {
            await createHuman(tx, { system: 'admin_cli' }, { handle, email: `${handle}@example.test` });
            made.push((await startSession(tx, handle)).token);
          }
          await assignRole(tx, { system: 'admin_cli' }, { member: 'crash-owner', role: 'owner' });
          return made as [string, string];
        });
      } finally {
        await ctx.close();
      }
      await startNode(0);
      receiver = await WebhookReceiver.start(nodes[0]!.url);
      assert.equal((await call(0, 'POST', '/v0/spaces', owner, { slug: 'hall', name: 'Hall' })).status, 201);
      assert.equal((await call(0, 'POST', '/v0/spaces/hall/approve', owner)).status, 200);
    });

    after(async () => {
      await receiver?.stop();
      await cli.cleanup();
      if (backend === 'postgres') await withPg(process.env.ATRIUM_TEST_DATABASE_URL!, (c) => c.query(`drop schema if exists ${schema} cascade`));
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('sends every owed wake after a SIGKILL: those owed but not yet built, and the one cut off on the wire (again, same id and body)', async () => {
      // One receiver holds its first wake without answering: that attempt is on the wire when the node dies.
      const held: ServerResponse[] = [];
      let holding = true;
      receiver.behaviours.set('/held', (req, res) => {
        if (req.body.type === 'atrium.webhook.challenge') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: req.body.challenge }));
        if (holding) held.push(res);
        else res.writeHead(202).end();
      });
      const onWire = await subscribe(0, '/held', 0);
      // The other's debounce window is still open when the node dies: its wake is owed, not yet built.
      const owed = await subscribe(0, '/owed', 30_000);
      const cursors: number[] = [];
      cursors.push(await post(0, 'before the crash 1'));
      await receiver.waitFor('/held', 2);
      cursors.push(await post(0, 'before the crash 2'));
      cursors.push(await post(0, 'before the crash 3'));

      const victim = nodes[0]!;
      victim.proc.child.kill('SIGKILL');
      assert.equal((await victim.proc.exited).signal, 'SIGKILL');
      for (const res of held) res.destroy();
      holding = false;
      // The owed window is long; on restart it is shortened so the test need not wait it out (the row is what survived).
      await shortenDebounce(owed.id);
      await startNode(0);

      const last = Math.max(...cursors);
      await receiver.until(() => covers(distinct(receiver.at('/held'), onWire.id), onWire.activation_cursor, last));
      await receiver.until(() => covers(distinct(receiver.at('/owed'), owed.id), owed.activation_cursor, last));
      const first = wakesOf(receiver.at('/held'), onWire.id)[0]!;
      const again = wakesOf(receiver.at('/held'), onWire.id).filter((w) => w.id === first.id);
      assert.ok(again.length >= 2, 'the cut-off wake was sent again with the same id');
    });

    if (backend === 'postgres') {
      it('two nodes share the deliveries under concurrent writes: every wake once by id, ranges contiguous and complete', async () => {
        await startNode(1);
        const subs = [];
        for (let i = 0; i < 4; i += 1) subs.push({ path: `/shared-${i}`, ...(await subscribe(i % 2, `/shared-${i}`, i === 3 ? 200 : 0)) });
        const cursors = (
          await Promise.all(
            Array.from({ length: 4 }, async (_, w) => {
              const mine: number[] = [];
              for (let i = 0; i < 10; i += 1) mine.push(await post((w + i) % 2, `writer ${w} note ${i}`));
              return mine;
            }),
          )
        ).flat();
        const last = Math.max(...cursors);
        for (const sub of subs) {
          await receiver.until(() => covers(distinct(receiver.at(sub.path), sub.id), sub.activation_cursor, last));
          const ids = wakesOf(receiver.at(sub.path), sub.id).map((w) => w.id);
          assert.equal(new Set(ids).size, ids.length, `${sub.path}: no wake sent twice`);
        }
      });
    }

    async function shortenDebounce(subscription: string): Promise<void> {
      const config = loadConfig({ ATRIUM_DATABASE_URL: databaseUrl, ATRIUM_DATA_DIR: dataDir, ATRIUM_WEBHOOK_SEALING_KEY: SEALING_KEY });
      config.dataDir = dataDir;
      const ctx = await createContext(config, { log: createLogger('silent') });
      try {
        await ctx.db.kysely.updateTable('webhook_subscriptions').set({ debounce_ms: 0 }).where('id', '=', subscription).execute();
      } finally {
        await ctx.close();
      }
    }
  });
}
