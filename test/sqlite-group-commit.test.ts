import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { createHuman } from '../src/members/service.js';
import type { Tx } from '../src/storage/database.js';
import { MAX_UNITS_PER_COMMIT } from '../src/storage/sqlite-batches.js';
import { hostEvents, lastCursor } from './support/events.js';
import { startServer, type TestServer } from './support/server.js';

/**
 * On SQLite, transactions that queue for the one connection together share a
 * COMMIT (src/storage/sqlite-batches.ts; docs/architecture.md, "The life of a request").
 * Each must still be all or nothing, be answered only once committed, and
 * leave the event log gapless. A second connection to the same file shows
 * what was committed at each moment.
 */
describe('Group commit on SQLite', () => {
  let server: TestServer;
  let observer: BetterSqlite3.Database;

  before(async () => {
    server = await startServer('sqlite');
    observer = new BetterSqlite3(server.database.url.slice('sqlite:'.length), { readonly: true });
  });
  after(async () => {
    observer.close();
    await server.stop();
  });

  const committed = (handle: string): boolean => observer.prepare('select 1 from members where handle = ?').get(handle) !== undefined;
  const seenInside = async (tx: Tx, handle: string): Promise<boolean> =>
    (await tx.db.selectFrom('members').select('handle').where('handle', '=', handle).executeTakeFirst()) !== undefined;
  const human = (tx: Tx, handle: string) => createHuman(tx, { system: 'admin_cli' }, { handle, email: `${handle}@example.test` });

  it('runs units that queued together in one transaction, rolls a failing one back alone, and answers each after the COMMIT', async () => {
    const since = await lastCursor(server);
    const db = server.app.ctx.db;
    const inside: Array<{ own: boolean; earlierInside: boolean; earlierCommitted: boolean }> = [];
    // All five are asked for in one turn of the event loop, so they queue together.
    const units = [0, 1, 2, 3, 4].map((i) =>
      db.transaction(async (tx) => {
        await human(tx, `shared-${i}`);
        if (i > 0) inside.push({ own: await seenInside(tx, `shared-${i}`), earlierInside: await seenInside(tx, `shared-${i - 1}`), earlierCommitted: committed(`shared-${i - 1}`) });
        if (i === 2) throw new Error('unit 2 refuses');
        return i;
      }),
    );
    const outcomes = await Promise.allSettled(units);

    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /unit 2 refuses/);
    // Unit 1 saw unit 0's member while the file did not hold it yet: one transaction, not yet committed.
    assert.deepEqual(inside[0], { own: true, earlierInside: true, earlierCommitted: false });
    // Unit 3 runs after unit 2 was rolled back to its savepoint: unit 2's member is gone even inside.
    assert.deepEqual(inside[2], { own: true, earlierInside: false, earlierCommitted: false });
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => committed(`shared-${i}`)),
      [true, true, false, true, true],
    );

    // The four committed members' events, on consecutive cursors, readable as soon as their writes answered.
    const events = (await hostEvents(server, since)).filter((e) => e.type === 'member_registered' || String(e.subjects).includes('shared-'));
    const handles = events.map((e) => e.subjects.find((s) => s.startsWith('member:'))?.slice('member:'.length));
    assert.deepEqual(handles, ['shared-0', 'shared-1', 'shared-3', 'shared-4']);
    const cursors = events.map((e) => e.cursor);
    assert.deepEqual(cursors, [since + 1, since + 2, since + 3, since + 4]);
  });

  it(`commits after ${MAX_UNITS_PER_COMMIT} units, and the rest start the next transaction`, async () => {
    const db = server.app.ctx.db;
    const count = MAX_UNITS_PER_COMMIT + 3;
    const firstCommitted: boolean[] = [];
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        db.transaction(async (tx) => {
          await human(tx, `capped-${i}`);
          firstCommitted[i] = committed('capped-0');
        }),
      ),
    );
    // The node's own background work may take a place in the first transaction, so only the bound is exact.
    const inFirst = firstCommitted.indexOf(true);
    assert.ok(inFirst > 0 && inFirst <= MAX_UNITS_PER_COMMIT, `the first transaction held ${inFirst} of these units`);
    assert.ok(firstCommitted.slice(inFirst).every(Boolean));
    assert.ok(Array.from({ length: count }, (_, i) => committed(`capped-${i}`)).every(Boolean));
  });

  it('fails every unit of a transaction SQLite ended itself, answers none of them as written, and goes on with the next', async () => {
    const since = await lastCursor(server);
    const db = server.app.ctx.db;
    const units = [
      db.transaction((tx) => human(tx, 'ended-0')),
      db.transaction(async (tx) => {
        await human(tx, 'ended-1');
        // What a full disk or an I/O error does: SQLite rolls the whole transaction back on its own.
        await sql`rollback`.execute(tx.db);
        throw new Error('the disk is full');
      }),
    ];
    const outcomes = await Promise.allSettled(units);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /the disk is full/);
    assert.equal(committed('ended-0'), false);
    assert.equal(committed('ended-1'), false);

    await db.transaction((tx) => human(tx, 'ended-after'));
    assert.equal(committed('ended-after'), true);
    // The cursors the failed batch had drawn were never seen: the next event takes the next one.
    const events = await hostEvents(server, since);
    assert.deepEqual(
      events.map((e) => [e.cursor, e.subjects.includes('member:ended-after')]),
      [[since + 1, true]],
    );
  });

  it('tells every waiting unit when a transaction cannot even begin, rather than trying again without end', async () => {
    const db = server.app.ctx.db;
    // A transaction left open on the connection: SQLite refuses the next BEGIN.
    await sql`begin`.execute(db.kysely);
    try {
      const outcomes = await Promise.allSettled([db.transaction((tx) => human(tx, 'unbegun-0')), db.transaction((tx) => human(tx, 'unbegun-1'))]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['rejected', 'rejected'],
      );
      assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /within a transaction/);
    } finally {
      await sql`rollback`.execute(db.kysely);
    }
    await db.transaction((tx) => human(tx, 'unbegun-after'));
    assert.deepEqual(
      ['unbegun-0', 'unbegun-1', 'unbegun-after'].map(committed),
      [false, false, true],
    );
  });
});
