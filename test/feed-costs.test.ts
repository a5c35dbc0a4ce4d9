import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';

/**
 * What a feed read costs as the log grows (docs/operations.md, "Capacity: costs as data
 * grows"): a member's page finds the direct messages addressed to them through
 * an index by member, never by reading the audience of every direct message on
 * the host, which would cost more with every one ever sent.
 */
for (const backend of backends()) {
  describe(`Feed read costs (${backend})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(backend);
      const alice = await server.human('cost-alice');
      const bob = await server.human('cost-bob');
      await activeSpace(server, alice.session, 'costs');
      for (const [from, to] of [
        [alice, bob],
        [bob, alice],
      ] as const) {
        const sent = await server.request('POST', '/v0/spaces/costs/direct-messages', { token: from.session, body: { to: to.handle, body: 'just between us' } });
        assert.equal(sent.status, 201);
      }
    });
    after(() => server.stop());

    it("reads a member's audience rows through an index by member", async () => {
      const db = server.app.ctx.db.kysely;
      const plan = await db.transaction().execute(async (trx) => {
        if (backend === 'sqlite') {
          return (await sql<{ detail: string }>`explain query plan select cursor from event_audience where member = ${'cost-bob'}`.execute(trx)).rows.map((r) => r.detail);
        }
        // A handful of rows is cheaper to read whole; the planner is asked what it would use once there are many.
        await sql`set local enable_seqscan = off`.execute(trx);
        return (await sql<{ 'QUERY PLAN': string }>`explain select cursor from event_audience where member = ${'cost-bob'}`.execute(trx)).rows.map((r) => r['QUERY PLAN']);
      });
      const text = plan.join('\n');
      assert.match(text, /event_audience_member_idx/, text);
      assert.match(text, backend === 'sqlite' ? /SEARCH event_audience USING COVERING INDEX event_audience_member_idx \(member=\?\)/ : /Index Cond: \(member = /, text);
    });
  });
}
