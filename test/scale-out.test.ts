import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
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
import { type ContractEvent, type ContractPage } from './support/events.js';
import { freePort, withPg, withSearchPath } from './support/server.js';

/**
 * The scale-out deployment as an operator runs it (docs/architecture.md,
 * "Scale-out"): two `atrium serve` processes on one PostgreSQL database. Writers
 * post through both, long-polling readers read through both, and the node that
 * numbers events is killed with SIGKILL in the middle and started again. Every
 * reader must see every committed event exactly once, in cursor order, and every
 * write that was acknowledged must be among them.
 */

const STEWARD = 'steward-scale-out-key-0123456789';
const WRITERS = 4;
const READERS = 4;
const WRITES_BEFORE_KILL = 20;
const WRITES_EACH = 15;

const databaseUrl = process.env.ATRIUM_TEST_DATABASE_URL;

if (databaseUrl) {
  describe('two `atrium serve` nodes on one PostgreSQL database (postgres)', () => {
    const schema = `atrium_scale_${randomBytes(6).toString('hex')}`;
    const url = withSearchPath(databaseUrl, schema);
    const dataDir = mkdtempSync(join(tmpdir(), 'atrium-scale-'));
    const SEALING_KEY = randomBytes(32).toString('base64url');
    const cli = new CliRunner('http://127.0.0.1:1');
    /** The live nodes' base URLs, by slot; a killed node's slot is empty until it is back. */
    const nodes: Array<{ url: string; proc: CliProcess } | undefined> = [undefined, undefined];
    let sessions: string[] = [];

    const startNode = async (slot: number): Promise<void> => {
      const port = await freePort();
      const proc = cli.spawn(['serve'], {
        ATRIUM_DATABASE_URL: url,
        ATRIUM_DATA_DIR: join(dataDir, `node-${slot}`),
        // Every node of one database seals its webhook keys under the same key (docs/webhooks.md).
        ATRIUM_WEBHOOK_SEALING_KEY: SEALING_KEY,
        ATRIUM_HOST: '127.0.0.1',
        ATRIUM_PORT: String(port),
        ATRIUM_BASE_URL: `http://127.0.0.1:${port}`,
        ATRIUM_STEWARD_KEY: STEWARD,
        ATRIUM_METRICS: 'on',
        ATRIUM_LOG_LEVEL: 'error',
      });
      await proc.waitForStdout(/Atrium is listening/);
      nodes[slot] = { url: `http://127.0.0.1:${port}`, proc };
    };

    before(async () => {
      await withPg(databaseUrl, (c) => c.query(`create schema ${schema}`));
      // The first node migrates; the people are made as `atrium admin create-owner` makes them, straight in the database.
      const config = loadConfig({ ATRIUM_DATABASE_URL: url, ATRIUM_DATA_DIR: dataDir, ATRIUM_WEBHOOK_SEALING_KEY: SEALING_KEY });
      config.dataDir = dataDir;
      const ctx = await createContext(config, { log: createLogger('silent') });
      try {
        sessions = await ctx.db.transaction(async (tx) => {
          const made: string[] = [];
          for (let i = 0; i < WRITERS + 1; i++) {
            const handle = `scale-${i}`;
            await createHuman(tx, { system: 'admin_cli' }, { handle, email: `${handle}@example.test` });
            if (i === 0) await assignRole(tx, { system: 'admin_cli' }, { member: handle, role: 'owner' });
            made.push((await startSession(tx, handle)).token);
          }
          return made;
        });
      } finally {
        await ctx.close();
      }
      await startNode(0);
      await startNode(1);
      const owner = sessions[0]!;
      assert.equal((await call(0, 'POST', '/v0/spaces', owner, { slug: 'hall', name: 'Hall' })).status, 201);
      assert.equal((await call(1, 'POST', '/v0/spaces/hall/approve', owner)).status, 200);
      for (const [i, session] of sessions.entries()) assert.equal((await call(i % 2, 'POST', '/v0/spaces/hall/join', session)).status, 200);
    });

    after(async () => {
      await cli.cleanup();
      await withPg(databaseUrl, (c) => c.query(`drop schema if exists ${schema} cascade`));
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** One request to the node in `slot`; throws if that node is down. */
    async function call<T = unknown>(slot: number, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: T }> {
      const node = nodes[slot];
      if (!node) throw new Error(`node ${slot} is down`);
      const res = await fetch(node.url + path, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    }

    /** A live node, starting from `preferred`: the other one while it is down. */
    const live = (preferred: number): number => (nodes[preferred % 2] ? preferred % 2 : (preferred + 1) % 2);

    it('hands every committed event to every long-polling reader exactly once, in cursor order, through a SIGKILL of the numbering node', async () => {
      const start = (await call<ContractPage>(0, 'GET', '/v0/spaces/hall/events?since=0&limit=500')).body;
      assert.equal((await call<ContractPage>(0, 'GET', `/v0/spaces/hall/events?since=${start.cursor}&limit=500`)).body.events.length, 0, 'the setup fits one page');
      // The first node took the lead (it started first); it is the one to kill.
      assert.match(await (await fetch(`${nodes[0]!.url}/metrics`)).text(), /^atrium_event_log_leader 1$/m);

      const acknowledged = new Set<string>();
      let writesDone = 0;
      /** The newest cursor of the log once every write is answered: where readers stop. */
      const stop: { at?: number } = {};
      let killed: () => void = () => undefined;
      const killPoint = new Promise<void>((resolve) => (killed = resolve));

      const readers = Array.from({ length: READERS }, async (_, r) => {
        const seen: ContractEvent[] = [];
        let since = start.cursor;
        let turn = r;
        while (stop.at === undefined || since < stop.at) {
          const slot = live(turn++);
          let page: ContractPage;
          try {
            const res = await call<ContractPage>(slot, 'GET', `/v0/spaces/hall/events?since=${since}&limit=7&wait=3`);
            assert.equal(res.status, 200, JSON.stringify(res.body));
            page = res.body;
          } catch (err) {
            if (err instanceof assert.AssertionError) throw err;
            continue; // The node died under this poll: ask the other one.
          }
          seen.push(...page.events);
          since = page.cursor;
        }
        return seen;
      });

      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        const session = sessions[w + 1]!;
        for (let i = 0; i < WRITES_EACH; i++) {
          const body = `writer ${w} note ${i}`;
          const slot = live(w + i);
          try {
            const res = await call(slot, 'POST', '/v0/spaces/hall/channels/general/messages', session, { body });
            assert.equal(res.status, 201, JSON.stringify(res.body));
            acknowledged.add(body);
          } catch (err) {
            if (err instanceof assert.AssertionError) throw err;
            // Cut off by the kill: committed or not, nobody was told; readers must agree with the log either way.
          }
          if (++writesDone === WRITES_BEFORE_KILL) killed();
        }
      });

      await killPoint;
      const victim = nodes[0]!;
      nodes[0] = undefined;
      victim.proc.child.kill('SIGKILL');
      assert.equal((await victim.proc.exited).signal, 'SIGKILL');
      await startNode(0);
      await Promise.all(writers);

      // Every write is answered; the log as it stands now is what every reader must end up with.
      const log: ContractEvent[] = [];
      for (let since = start.cursor; ; ) {
        const page = (await call<ContractPage>(1, 'GET', `/v0/spaces/hall/events?since=${since}&limit=500`)).body;
        if (page.events.length === 0) break;
        log.push(...page.events);
        since = page.cursor;
      }
      stop.at = log.at(-1)!.cursor;
      const seenByReaders = await Promise.all(readers);

      const bodies = log.flatMap((e) => (e.type === 'message_posted' ? [e.payload.body] : []));
      for (const body of acknowledged) assert.ok(bodies.includes(body), `acknowledged write "${body}" is in the log`);
      assert.equal(new Set(bodies).size, bodies.length, 'no write is in the log twice');
      assert.ok(acknowledged.size >= WRITERS * WRITES_EACH - WRITERS, `most writes were acknowledged (${acknowledged.size})`);
      for (const [r, seen] of seenByReaders.entries()) {
        assert.deepEqual(
          seen.map((e) => e.cursor),
          log.map((e) => e.cursor),
          `reader ${r} saw every event once, in cursor order`,
        );
      }
      // The restarted node answers from the same log.
      const again = (await call<ContractPage>(0, 'GET', `/v0/spaces/hall/events?since=${start.cursor}&limit=500`)).body;
      assert.deepEqual(
        again.events.map((e) => e.cursor),
        log.map((e) => e.cursor),
      );
    });
  });
}
