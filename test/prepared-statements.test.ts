import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { PreparedStatement } from '../src/storage/prepared.js';
import type { DatabaseSchema } from '../src/storage/schema.js';
import type { WriteWatcher } from '../src/storage/write-watch.js';
import { backends, startServer, type TestServer } from './support/server.js';

/**
 * A statement built once and run with new values (src/storage/prepared.ts):
 * the hot writes use it, so it must bind exactly what each call passes, build
 * again for another shape, refuse a value it would inline, and let the write
 * watch hear its writes as it hears the builder's.
 */
/** A table of the test's own, made when the server starts. */
type Probe = {
  probe: { cursor: number; subject: string };
};
const probe = (db: Kysely<DatabaseSchema>) => db.withTables<Probe>();

const SUBJECTS = new PreparedStatement((db, { cursor, subjects }: { cursor: number; subjects: string[] }) =>
  probe(db)
    .insertInto('probe')
    .values(subjects.map((subject) => ({ subject, cursor }))),
);
const READ_SUBJECTS = new PreparedStatement((db, { cursor, prefix }: { cursor: number; prefix: string | undefined }) => {
  let query = probe(db).selectFrom('probe').select('subject').where('cursor', '=', cursor);
  if (prefix !== undefined) query = query.where('subject', 'like', prefix);
  return query.orderBy('subject');
});

for (const backend of backends()) {
  describe(`Prepared statements (${backend})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(backend);
      await sql`create table probe (cursor integer not null, subject text not null)`.execute(server.app.ctx.db.kysely);
    });
    after(() => server.stop());

    it('binds each call its own values, and builds again for arrays of another length and parts left out', async () => {
      const db = server.app.ctx.db.kysely;
      await SUBJECTS.execute(db, { cursor: 900_001, subjects: ['a:1', 'b:1'] });
      await SUBJECTS.execute(db, { cursor: 900_002, subjects: ['a:2'] });
      await SUBJECTS.execute(db, { cursor: 900_003, subjects: ['a:3', 'b:3', 'c:3'] });
      await SUBJECTS.execute(db, { cursor: 900_004, subjects: ['x:4', 'y:4'] });

      const read = async (cursor: number, prefix?: string) => (await READ_SUBJECTS.rows(db, { cursor, prefix })).map((row) => row.subject);
      assert.deepEqual(await read(900_001), ['a:1', 'b:1']);
      assert.deepEqual(await read(900_002), ['a:2']);
      assert.deepEqual(await read(900_003), ['a:3', 'b:3', 'c:3']);
      assert.deepEqual(await read(900_004), ['x:4', 'y:4']);
      assert.deepEqual(await read(900_003, 'b%'), ['b:3']);
      assert.deepEqual(await read(900_004, 'y%'), ['y:4']);
      assert.deepEqual(await read(900_001), ['a:1', 'b:1']);
      if (backend === 'sqlite') {
        // A value that looks like a marker is only a value (PostgreSQL's text cannot hold NUL at all).
        await SUBJECTS.execute(db, { cursor: 900_005, subjects: ['\u0000slot:["subjects",0]'] });
        assert.deepEqual(await read(900_005), ['\u0000slot:["subjects",0]']);
      }
    });

    it('refuses, when first built, a statement that would write a value into its SQL instead of binding it', async () => {
      const inlined = new PreparedStatement((db, { subject }: { subject: string }) => probe(db).selectFrom('probe').select('cursor').where('subject', '=', sql.lit(subject)));
      await assert.rejects(inlined.rows(server.app.ctx.db.kysely, { subject: 'a:1' }), /inlines an argument instead of binding it/);
    });

    it('lets the write watch hear its writes as it hears the builder\'s, in a transaction and alone', async () => {
      let heard = 0;
      const watcher: WriteWatcher = {
        matches: (node) => node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'probe',
        changed: () => (heard += 1),
      };
      const db = server.app.ctx.db;
      db.watchWrites(watcher);
      const counted = async (write: () => Promise<unknown>): Promise<number> => {
        const before = heard;
        await write();
        return heard - before;
      };
      const built = (on: Kysely<DatabaseSchema>, cursor: number) => probe(on).insertInto('probe').values({ cursor, subject: 'w' }).execute();

      const alone = await counted(() => SUBJECTS.execute(db.kysely, { cursor: 900_006, subjects: ['w'] }));
      assert.ok(alone > 0);
      assert.equal(alone, await counted(() => built(db.kysely, 900_007)));
      const inTransaction = await counted(() => db.transaction((tx) => SUBJECTS.execute(tx.db, { cursor: 900_008, subjects: ['w'] })));
      assert.ok(inTransaction > 0);
      assert.equal(inTransaction, await counted(() => db.transaction((tx) => built(tx.db, 900_009))));
      // A write sent late, with others (src/storage/together.ts), is heard as one sent at once.
      assert.equal(inTransaction, await counted(() => db.transaction(async (tx) => tx.later(SUBJECTS, { cursor: 900_010, subjects: ['w'] }))));
    });

    it('sends late writes before the unit ends, each with its own values, and a unit whose late write fails keeps nothing', async () => {
      const db = server.app.ctx.db;
      const read = async (cursor: number) => (await READ_SUBJECTS.rows(db.kysely, { cursor, prefix: undefined })).map((row) => row.subject);
      // Late writes are not there yet for the unit itself (on PostgreSQL, as on SQLite): nothing in a unit reads them back.
      const seen = await db.transaction(async (tx) => {
        tx.later(SUBJECTS, { cursor: 900_020, subjects: ['p:1', 'p:2'] });
        tx.later(SUBJECTS, { cursor: 900_021, subjects: ['q:1'] });
        await SUBJECTS.execute(tx.db, { cursor: 900_022, subjects: ['now'] });
        tx.later(SUBJECTS, { cursor: 900_023, subjects: ['r:1', 'r:2', 'r:3'] });
        // With an event, on PostgreSQL the late writes and the event's queueing are one statement.
        tx.emit({ type: 'space_proposed', space: null, actor: { system: 'admin_cli' }, subjects: ['probe:late'], payload: { slug: 'probe-late', name: 'Probe', join_policy: 'open' } });
        return (await READ_SUBJECTS.rows(tx.db, { cursor: 900_020, prefix: undefined })).length;
      });
      assert.equal(seen, 0);
      assert.deepEqual(await read(900_020), ['p:1', 'p:2']);
      assert.deepEqual(await read(900_021), ['q:1']);
      assert.deepEqual(await read(900_022), ['now']);
      assert.deepEqual(await read(900_023), ['r:1', 'r:2', 'r:3']);
      // Without an event to go with, the late writes still go.
      await db.transaction(async (tx) => tx.later(SUBJECTS, { cursor: 900_024, subjects: ['s:1'] }));
      assert.deepEqual(await read(900_024), ['s:1']);

      // A late write that fails fails the unit, and what it wrote before goes with it.
      const failing = new PreparedStatement((on, { cursor }: { cursor: number }) => probe(on).insertInto('probe').values({ cursor, subject: sql<string>`null` }));
      await assert.rejects(
        db.transaction(async (tx) => {
          await SUBJECTS.execute(tx.db, { cursor: 900_025, subjects: ['gone'] });
          tx.later(SUBJECTS, { cursor: 900_026, subjects: ['gone'] });
          tx.later(failing, { cursor: 900_027 });
        }),
      );
      assert.deepEqual([...(await read(900_025)), ...(await read(900_026))], []);
    });
  });
}
