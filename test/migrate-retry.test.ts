import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anotherSchemaDropped } from '../src/storage/database.js';
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
      assert.equal(anotherSchemaDropped(gone, 'atrium_test_mine'), true);
      assert.equal(anotherSchemaDropped(gone, 'atrium_test_gone'), false, 'our own schema missing is a real failure');
      assert.equal(anotherSchemaDropped(await refusal('select * from no_such_table_here'), 'atrium_test_mine'), false);
      assert.equal(anotherSchemaDropped(new Error('schema "x" does not exist'), 'mine'), false, "only PostgreSQL's own code counts");
    });

    it("retries when one of another schema's tables went while the listing named it, never one of ours", async () => {
      const schema = `atrium_test_retry_${process.pid}`;
      await withPg(url, (c) => c.query(`create schema ${schema}`));
      try {
        const tableGone = await refusal(`select '${schema}.resources'::regclass`);
        assert.equal((tableGone as { code: string }).code, '42P01');
        assert.equal(anotherSchemaDropped(tableGone, 'atrium_test_mine'), true);
        assert.equal(anotherSchemaDropped(tableGone, schema), false, 'a table of our own missing is a real failure');
        assert.equal(anotherSchemaDropped(await refusal(`select 'resources_nowhere'::regclass`), 'atrium_test_mine'), false, 'an unqualified name says nothing of another schema');
      } finally {
        await withPg(url, (c) => c.query(`drop schema ${schema} cascade`));
      }
    });
  });
}
