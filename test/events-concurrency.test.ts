import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { appendEvents } from '../src/events/append.js';
import { logChannels } from '../src/events/log.js';
import { SEQUENCING_LOCK_NAMESPACE, Sequencer } from '../src/events/sequencer.js';
import { createLogger } from '../src/logger.js';
import type { NewEvent } from '../src/events/types.js';
import { createHuman } from '../src/members/service.js';
import { changeReviewPolicy } from '../src/spaces/service.js';
import type { DatabaseSchema } from '../src/storage/schema.js';
import { storedEvents } from './support/seed.js';
import { type ContractEvent } from './support/events.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

/**
 * protocol: The ordering guarantee. "No event ever becomes visible with a cursor
 * lower than one already handed out to a reader."
 * docs/events.md explains the design these tests hold to.
 */

/** A promise with its resolver and a settled flag, for ordering without sleeps. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

function track<T>(promise: Promise<T>) {
  const state = { done: false, value: undefined as T | undefined, promise };
  state.promise = promise.then((value) => {
    state.done = true;
    state.value = value;
    return value;
  });
  return state;
}

const testEvent = (handle: string): NewEvent => ({
  type: 'member_approved',
  space: null,
  actor: { system: 'admin_cli' },
  subjects: [`member:${handle}`],
  payload: { handle },
});

for (const backend of backends()) {
  describe(`Event cursors under concurrent writers (${backend})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(backend);
    });
    after(() => server.stop());

    it('hands a tailer every committed event exactly once, in strictly increasing cursor order', { timeout: 120_000 }, async () => {
      const JOINERS = 6;
      const PROPOSERS = 2;
      const ROUNDS = 20; // each joiner joins and leaves 20 times: 40 writes
      const PROPOSALS = 40;
      const DIRECT = 20;

      const proposer = await server.human('founder');
      const created = await server.request('POST', '/v0/spaces', { token: proposer.session, body: { slug: 'busy', name: 'Busy' } });
      assert.equal(created.status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/busy/approve', { token: STEWARD_KEY })).status, 200);
      const joiners = await Promise.all(Array.from({ length: JOINERS }, (_, i) => server.human(`joiner-${i}`)));
      const proposers = await Promise.all(Array.from({ length: PROPOSERS }, (_, i) => server.human(`proposer-${i}`)));

      const db = server.app.ctx.db;
      // Another connection on PostgreSQL; on SQLite every query shares one
      // connection, so a transaction can only wait on its own.
      const other = (own: Kysely<DatabaseSchema>): Kysely<DatabaseSchema> => (backend === 'postgres' ? db.kysely : own);

      const joinLoop = async (session: string) => {
        for (let i = 0; i < ROUNDS; i++) {
          assert.equal((await server.request('POST', '/v0/spaces/busy/join', { token: session })).status, 200);
          assert.equal((await server.request('POST', '/v0/spaces/busy/leave', { token: session })).status, 200);
        }
      };
      const proposeLoop = async (session: string, prefix: string) => {
        for (let i = 0; i < PROPOSALS; i++) {
          const res = await server.request('POST', '/v0/spaces', { token: session, body: { slug: `${prefix}-${i}`, name: `${prefix} ${i}` } });
          assert.equal(res.status, 201);
        }
      };
      // Direct writers hold their transaction open across a query on another
      // connection, so transactions that began early commit late and other
      // commits land in between.
      const policies = ['distinct_member', 'self_attested', 'independent_principal'] as const;
      const policyWriter = async (k: number) => {
        for (let i = 0; i < DIRECT; i++) {
          await db.transaction(async (tx) => {
            await changeReviewPolicy(tx, { kind: 'steward' }, 'busy', policies[(k + i) % 3]!, `direct ${k}-${i}`);
            await other(tx.db).selectFrom('events').select((eb) => eb.fn.countAll().as('n')).execute();
          });
        }
      };
      const registrar = async (k: number) => {
        for (let i = 0; i < DIRECT; i++) {
          await db.transaction(async (tx) => {
            await other(tx.db).selectFrom('events').select((eb) => eb.fn.max('cursor').as('head')).execute();
            await createHuman(tx, { system: 'admin_cli' }, { handle: `direct-${k}-${i}`, email: `direct-${k}-${i}@example.test` });
            await other(tx.db).selectFrom('members').select('handle').limit(1).execute();
          });
        }
      };

      let writersDone = false;
      const writers = Promise.all([
        ...joiners.map((j) => joinLoop(j.session)),
        ...proposers.map((p, i) => proposeLoop(p.session, `prop-${i}`)),
        policyWriter(0),
        policyWriter(1),
        registrar(0),
        registrar(1),
      ]);
      const settled = writers.then(
        () => (writersDone = true),
        () => (writersDone = true),
      );

      /** Tails a feed resuming only from returned cursors until, after the writers finished, a page is empty. */
      const tail = async (path: string, token: string | undefined, limit: number) => {
        const seen: ContractEvent[] = [];
        let since = 0;
        for (;;) {
          const finishedBefore = writersDone;
          const res = await server.request('GET', `${path}?since=${since}&limit=${limit}`, token ? { token } : {});
          assert.equal(res.status, 200, JSON.stringify(res.body));
          const events: ContractEvent[] = res.body.events;
          for (const event of events) {
            assert.ok(event.cursor > since, `cursor ${event.cursor} after ${since}`);
            since = event.cursor;
            seen.push(event);
          }
          assert.equal(res.body.cursor, since);
          if (finishedBefore && events.length === 0) return seen;
        }
      };

      const [spaceSeen, hostSeen] = await Promise.all([
        tail('/v0/spaces/busy/events', undefined, 25),
        tail('/v0/events', STEWARD_KEY, 50),
        settled,
      ]);
      await writers;

      // Exactly the committed events, each once, in cursor order.
      assert.deepEqual(
        spaceSeen.map((e) => e.cursor),
        (await storedEvents(server, 'busy')).map((e) => e.cursor),
      );
      assert.deepEqual(
        hostSeen.map((e) => e.cursor),
        (await storedEvents(server)).map((e) => e.cursor),
      );
      assert.ok(spaceSeen.every((e) => e.space === 'busy'));

      const count = (type: string) => spaceSeen.filter((e) => e.type === type).length;
      assert.equal(count('space_member_admitted'), JOINERS * ROUNDS);
      assert.equal(count('space_member_left'), JOINERS * ROUNDS);
      assert.equal(hostSeen.filter((e) => e.type === 'space_proposed').length, PROPOSERS * PROPOSALS + 1);
      assert.equal(hostSeen.filter((e) => e.type === 'member_registered').length, 1 + JOINERS + PROPOSERS + 2 * DIRECT);

      // Review-policy changes read and write one row; in cursor order each one
      // starts from the policy the previous one set.
      let policy = 'independent_principal';
      const changes = spaceSeen.filter((e) => e.type === 'space_review_policy_changed');
      assert.ok(changes.length > 0);
      for (const change of changes) {
        assert.equal(change.payload.previous_review_policy, policy, `event ${change.cursor}`);
        assert.notEqual(change.payload.review_policy, policy);
        policy = change.payload.review_policy as string;
      }
      assert.equal((await server.request('GET', '/v0/spaces/busy')).body.review_policy, policy);
    });
  });

  describe(`Event cursors at the database layer (${backend})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(backend);
    });
    after(() => server.stop());

    const head = async () => (await storedEvents(server)).at(-1)?.cursor ?? 0;
    const hostFeed = async (since: number): Promise<number[]> => {
      const res = await server.request('GET', `/v0/events?since=${since}`, { token: STEWARD_KEY });
      assert.equal(res.status, 200);
      return res.body.events.map((e: ContractEvent) => e.cursor);
    };

    if (backend === 'postgres') {
      /** Transactions of this host waiting for the sequencing lock (pg_locks, not timing). */
      const sequencingWaiters = async (): Promise<number> => {
        const result = await sql<{ n: number }>`
          select count(*)::int as n from pg_locks
          where locktype = 'advisory' and not granted and objsubid = 2
            and classid::bigint = ${SEQUENCING_LOCK_NAMESPACE}
            and objid::bigint = (hashtext(current_schema())::bigint & 4294967295)`.execute(server.app.ctx.db.kysely);
        return result.rows[0]!.n;
      };

      it('numbering at insert, without the sequencer, lets a cursor drawn first become visible last (the hazard)', async () => {
        // Two transactions number their own events from a sequence, as writers did before the sequencer.
        const db = server.app.ctx.db.kysely;
        await sql`create sequence if not exists hazard_cursor start with 1000000`.execute(db);
        const since = await head();
        const insert = (trx: Kysely<DatabaseSchema>, handle: string) =>
          sql<{ cursor: number }>`insert into events (cursor, type, space, actor, subjects, payload, created_ts)
            values (nextval('hazard_cursor'), 'member_approved', null, null, '[]', ${JSON.stringify({ handle, via: 'admin_cli' })}, ${new Date().toISOString()})
            returning cursor`.execute(trx);
        const drawn = gate<number>();
        const release = gate();
        const first = db.transaction().execute(async (trx) => {
          drawn.open(Number((await insert(trx, 'first')).rows[0]!.cursor));
          await release.promise;
        });
        const firstCursor = await drawn.promise;
        let second: number;
        try {
          second = Number((await db.transaction().execute((trx) => insert(trx, 'second'))).rows[0]!.cursor);
          assert.ok(second > firstCursor);
          // A reader is handed the later cursor while the earlier one is invisible...
          await server.app.ctx.events.tail.announce(second);
          assert.deepEqual(await hostFeed(since), [second]);
        } finally {
          release.open();
          await first;
        }
        // ...and `first` is in the log now, below the cursor that reader resumes from: a tailer resuming after `second` never sees it.
        const logged = await db.selectFrom('events').select('cursor').where('cursor', '>', since).orderBy('cursor').execute();
        assert.deepEqual(
          logged.map((row) => Number(row.cursor)),
          [firstCursor, second],
        );
        assert.deepEqual(await hostFeed(second), []);
      });

      it('lets writers commit without waiting for each other, and numbers what commits later after what committed earlier', async () => {
        const db = server.app.ctx.db;
        const since = await head();
        const queued = gate();
        const release = gate();
        // T1 queues its event through the real appendEvents, then stays open.
        const t1 = track(
          db.kysely.transaction().execute(async (trx) => {
            const appended = await appendEvents(trx, db.dialect, [testEvent('txn-1')], new Date().toISOString());
            assert.ok('queued' in appended && appended.queued.length === 1);
            queued.open();
            await release.promise;
          }),
        );
        await queued.promise;
        try {
          // T2 goes through the production path and answers while T1 is still open: no commit line.
          await db.transaction(async (tx) => tx.emit(testEvent('txn-2')));
          const [t2Cursor] = await hostFeed(since);
          assert.equal((await hostFeed(since)).length, 1, "T2's event is readable; T1's, uncommitted, is not");
          assert.equal(t1.done, false);
          release.open();
          await t1.promise;
          await db.transaction(async (tx) => tx.emit(testEvent('txn-3')));
          // T1 committed after T2 was numbered: its event comes after, and a tailer resuming from T2's cursor sees it.
          const after = await hostFeed(t2Cursor!);
          assert.equal(after.length, 2);
          assert.ok(after[0]! > t2Cursor!);
          const payloads = (await server.request('GET', `/v0/events?since=${since}`, { token: STEWARD_KEY })).body.events.map(
            (e: ContractEvent) => e.payload.handle,
          );
          assert.deepEqual(payloads, ['txn-2', 'txn-1', 'txn-3']);
        } finally {
          release.open();
          await t1.promise;
        }
      });

      it('makes a second sequencing transaction wait while the first holds numbered events uncommitted', async () => {
        const { pool, schema } = server.app.ctx.db.postgres!;
        const since = await head();
        const channel = logChannels(await schema()).numbered;
        // A sequencing transaction of "another node" that has taken the lock and not committed.
        const holder = await pool.connect();
        const second = new Sequencer({ pool, channel, log: createLogger('silent'), idleCheckMs: 1000, onBatch: () => undefined });
        let cycle: ReturnType<typeof track<Awaited<ReturnType<Sequencer['cycle']>>>> | undefined;
        try {
          await holder.query('BEGIN');
          await holder.query(`SELECT pg_advisory_xact_lock(${SEQUENCING_LOCK_NAMESPACE}, hashtext(current_schema()))`);
          // A write queues an event; this node's sequencer and the second one both try to number it.
          const write = track(server.app.ctx.db.transaction(async (tx) => tx.emit(testEvent('queued-1'))));
          cycle = track(second.cycle());
          let waiting = 0;
          for (let polls = 0; waiting < 2 && !cycle.done && polls < 100_000; polls++) waiting = await sequencingWaiters();
          assert.equal(waiting, 2, 'both sequencing transactions wait for the lock');
          assert.equal(cycle.done, false);
          assert.equal(write.done, false, 'the write answers only once its event is numbered');
          assert.deepEqual(await hostFeed(since), []);
          await holder.query('COMMIT');
          await Promise.all([write.promise, cycle.promise]);
        } finally {
          await holder.query('ROLLBACK').catch(() => undefined);
          holder.release();
        }
        // Numbered once, by whichever took its turn first.
        assert.equal((await hostFeed(since)).length, 1);
        const queuedLeft = await server.app.ctx.db.kysely.selectFrom('pending_events').select('id').execute();
        assert.deepEqual(queuedLeft, []);
      });
    }

    it('never lets a reader see a later cursor before an earlier one', async () => {
      // T1 appends and stays open; T2 and a reader run meanwhile. Whatever the
      // reader sees must be a prefix of the final order.
      const db = server.app.ctx.db;
      const since = await head();
      const appended = gate();
      const release = gate();
      const t1 = db.kysely
        .transaction()
        .execute(async (trx) => {
          const result = await appendEvents(trx, db.dialect, [testEvent('pending-1')], new Date().toISOString());
          appended.open();
          await release.promise;
          return result;
        })
        .then(async (result) => {
          // This transaction ran outside Database.transaction: tell the log, as it would have.
          const ticket = db.eventLog!.appended(result);
          await ticket.committed();
        });
      await appended.promise;
      const t2 = db.transaction(async (tx) => tx.emit(testEvent('pending-2')));
      const early = hostFeed(since);
      release.open();
      await Promise.all([t1, t2]);
      const final = await hostFeed(since);
      assert.equal(final.length, 2);
      const seen = await early;
      assert.deepEqual(seen, final.slice(0, seen.length), `reader saw ${JSON.stringify(seen)}, final order ${JSON.stringify(final)}`);
    });
  });
}
