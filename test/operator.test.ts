import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintMemberKey } from '../src/identity/member-keys.js';
import { assertError } from './support/errors.js';
import { backends, startServer, type TestServer } from './support/server.js';

/**
 * The operator's status (docs/operations.md, "The operator's page"): every
 * node's samples as it wrote them, the largest tables, error answers by code,
 * the janitor's newest run; a host-wide Owner's alone.
 */
for (const backend of backends()) {
  describe(`operator status (${backend})`, () => {
    let server: TestServer;
    let owner: { handle: string; session: string };
    let member: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend);
      // Its own sample every ten seconds of real time would land between the test's; the test takes them itself.
      server.app.sampler.stop();
      owner = await server.human('olga', { role: 'owner' });
      member = await server.human('mo');
    });
    after(async () => server.stop());

    it('shows this node, its samples, its error answers by code, the largest tables and the janitor', async () => {
      const first = await server.app.sampler.record();
      assert.equal(first.leading, true);
      assert.equal(first.ready, true);
      assertError(await server.request('GET', '/v0/spaces/nowhere', { token: owner.session }), 'space_not_found');
      assertError(await server.request('GET', '/v0/spaces/nowhere-else', { token: owner.session }), 'space_not_found');
      await server.app.janitor.run();
      const second = await server.app.sampler.record();
      assert.equal(second.errors.space_not_found, 2);
      assert.ok(second.requests_per_second > 0);

      const res = await server.request('GET', '/v0/operator/status', { token: owner.session });
      assert.equal(res.status, 200, res.body?.detail);
      const status = res.body as {
        nodes: Array<{ node: string; leading: boolean; ready: boolean; current: boolean }>;
        samples: Array<{ node: string; ts: string }>;
        tables: Array<{ name: string; bytes: number }>;
        errors: Record<string, number>;
        janitor: { removed: Record<string, number> } | null;
      };
      assert.deepEqual(status.nodes.map((n) => [n.node, n.leading, n.ready, n.current]), [[server.app.sampler.node, true, true, true]]);
      assert.deepEqual(status.samples.map((s) => s.ts), [first.ts, second.ts].sort());
      assert.equal(status.errors.space_not_found, 2);
      assert.ok(status.tables.length > 0 && status.tables.length <= 10);
      assert.ok(status.tables.every((t, i) => i === 0 || status.tables[i - 1]!.bytes >= t.bytes), 'largest first');
      assert.ok(status.janitor && 'sessions' in status.janitor.removed, 'the janitor run the node sampled');
    });

    it('is a host-wide Owner’s alone, with their session or their own key', async () => {
      assertError(await server.request('GET', '/v0/operator/status', { token: member.session }), 'role_required');
      assertError(await server.request('GET', '/v0/operator/status'), 'credential_required');
      const key = await server.app.ctx.db.transaction((tx) => mintMemberKey(tx, owner.handle, 'client_activation', 'status script'));
      assert.equal((await server.request('GET', '/v0/operator/status', { token: key.key })).status, 200);
    });
  });
}
