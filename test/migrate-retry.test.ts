import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anotherSchemaChanged } from '../src/storage/database.js';
import { backends, withPg } from './support/server.js';

// Migrating lists every table of the database, so a schema another host (or a
// test run next to this one) drops meanwhile fails that listing: src/storage/
// database.ts migrates again then, but only then. The errors here are
// PostgreSQL's own, not made up.
for (const backend of backends().filter((b) => b === 'postgres')) {
  describe(`which migration failures are retried (${backend})`, () => {
    const url = process.env.ATRIUM_TEST_DATABASE_URL!;
    const refusal = (sql: string): Promise<unknown> =>
      withPg(url, (c) => c.query(sql).then(() => assert.fail(`${sql} succeeded`), (err: unknown) => err));

    it('retries when the missing schema is another one, never when it is ours or the error is something else', async () => {
      const gone = await refusal(`select 'atrium_test_gone'::regnamespace`);
      assert.equal((gone as { code: string }).code, '3F000');
      assert.equal(anotherSchemaChanged(gone, 'atrium_test_mine', true), true);
      assert.equal(anotherSchemaChanged(gone, 'atrium_test_gone', true), false, 'our own schema missing is a real failure');
      assert.equal(anotherSchemaChanged(await refusal('select * from no_such_table_here'), 'atrium_test_mine', true), false);
      assert.equal(anotherSchemaChanged(new Error('schema "x" does not exist'), 'mine', true), false, "only PostgreSQL's own code counts");
    });

    it("retries when one of another schema's tables went while the listing named it, never one of ours", async () => {
      const schema = `atrium_test_retry_${process.pid}`;
      await withPg(url, (c) => c.query(`create schema ${schema}`));
      try {
        const tableGone = await refusal(`select '${schema}.resources'::regclass`);
        assert.equal((tableGone as { code: string }).code, '42P01');
        assert.equal(anotherSchemaChanged(tableGone, 'atrium_test_mine', true), true);
        assert.equal(anotherSchemaChanged(tableGone, schema, true), false, 'a table of our own missing is a real failure');
        assert.equal(anotherSchemaChanged(await refusal(`select 'resources_nowhere'::regclass`), 'atrium_test_mine', true), false, 'an unqualified name says nothing of another schema');
      } finally {
        await withPg(url, (c) => c.query(`drop schema ${schema} cascade`));
      }
    });

    it("retries a column that went while the listing asked for its sequence, but only before any migration of ours ran", async () => {
      const schema = `atrium_test_column_${process.pid}`;
      await withPg(url, (c) => c.query(`create schema ${schema}; create table ${schema}.spaces (id integer)`));
      try {
        // The listing asks pg_get_serial_sequence of each column it read from the catalogue.
        const columnGone = await refusal(`select pg_get_serial_sequence('${schema}.spaces', 'slug')`);
        assert.equal((columnGone as { code: string }).code, '42703');
        assert.equal(anotherSchemaChanged(columnGone, 'atrium_test_mine', true), true);
        assert.equal(anotherSchemaChanged(columnGone, 'atrium_test_mine', false), false, 'once our migrations run, a missing column is theirs to answer for');
        assert.equal(anotherSchemaChanged(await refusal(`select nonexistent_column from ${schema}.spaces`), 'atrium_test_mine', true), false, 'only the listing\'s own wording counts');
      } finally {
        await withPg(url, (c) => c.query(`drop schema ${schema} cascade`));
      }
    });
  });
}
