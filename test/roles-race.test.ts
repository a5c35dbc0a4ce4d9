import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AtriumError } from '../src/shared/errors.js';
import { assignRole } from '../src/roles/service.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

for (const backend of backends()) {
  describe(`Role assignment races (${backend})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend);
      await server.human('rita');
    });
    after(() => server.stop());

    it('of many concurrent identical assignments exactly one wins; the rest are 409', async () => {
      const attempts = await Promise.allSettled(
        Array.from({ length: 8 }, () =>
          server.app.ctx.db.transaction((tx) => assignRole(tx, { steward: true }, { member: 'rita', role: 'host' })),
        ),
      );
      const won = attempts.filter((a) => a.status === 'fulfilled');
      const lost = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
      assert.equal(won.length, 1);
      for (const loss of lost) {
        assert.ok(loss.reason instanceof AtriumError, String(loss.reason));
        assert.equal(loss.reason.status, 409);
      }
      const listed = await server.request('GET', '/v0/role-assignments?member=rita', { token: STEWARD_KEY });
      assert.equal(listed.status, 200);
      assert.equal(listed.body.role_assignments.length, 1);
    });
  });
}
