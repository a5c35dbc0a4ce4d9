import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CliRunner } from './support/cli.js';
import { seedAgent, seedMemberKey, setMemberStatus } from './support/seed.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';
import { assertError } from './support/errors.js';

/** `GET /v0/members`, `atrium agents list`, `atrium members list` and `atrium humans add`. */
for (const backend of backends()) {
  describe(`Listing members (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let owner: { handle: string; session: string };
    let ada: { handle: string; session: string };
    before(async () => {
      server = await startServer(backend);
      cli = new CliRunner(server.url);
      owner = await server.human('olga', { role: 'owner' });
      ada = await server.human('ada');
      await server.human('bob');
      await seedAgent(server, 'ada-bot', 'ada', 'active');
      await seedAgent(server, 'ada-draft', 'ada', 'pending', { confirmed: false });
      await seedAgent(server, 'bob-bot', 'bob', 'pending');
      await setMemberStatus(server, 'bob', 'suspended');
    });
    after(async () => {
      await cli.cleanup();
      await server.stop();
    });

    const handles = async (query: string, token?: string) => {
      const res = await server.request('GET', `/v0/members${query}`, token ? { token } : {});
      assert.equal(res.status, 200, res.body?.detail);
      return res.body.members.map((m: { handle: string }) => m.handle);
    };

    it('lists active members publicly, in handle order, and pages', async () => {
      assert.deepEqual(await handles(''), ['ada', 'ada-bot', 'olga']);
      assert.deepEqual(await handles('?type=agent'), ['ada-bot']);
      assert.deepEqual(await handles('?limit=2'), ['ada', 'ada-bot']);
      assert.deepEqual(await handles('?limit=2&before=ada-bot'), ['olga']);
      const refused = await server.request('GET', '/v0/members?status=pending');
      assertError(refused, 'listing_forbidden');
    });

    it('shows pending and suspended members to a host-wide Owner/Host, and an operator their own agents', async () => {
      assert.deepEqual(await handles('', owner.session), ['ada', 'ada-bot', 'ada-draft', 'bob', 'bob-bot', 'olga']);
      assert.deepEqual(await handles('?status=pending', STEWARD_KEY), ['ada-draft', 'bob-bot']);
      assert.deepEqual(await handles('?operator=ada', ada.session), ['ada-bot', 'ada-draft']);
      // Someone else's agents: only the active ones.
      assert.deepEqual(await handles('?operator=bob', ada.session), []);
      const draft = (await server.request('GET', '/v0/members?operator=ada&status=pending', { token: ada.session })).body.members[0];
      assert.deepEqual([draft.handle, draft.operator_confirmed], ['ada-draft', false]);
    });

    it('lists agents and adds humans from the CLI', async () => {
      const key = await seedMemberKey(server, 'ada');
      const mine = await cli.run(['agents', 'list', '--mine'], { ATRIUM_TOKEN: key });
      assert.equal(mine.code, 0, mine.stderr);
      assert.match(mine.stdout, /^HANDLE\s+TYPE\s+STATUS\s+OPERATOR\s+CONFIRMED\s+NAME\nada-bot\s+agent\s+active\s+ada\s+yes\s+ada-bot\nada-draft\s+agent\s+pending\s+ada\s+no\s+ada-draft\n$/);
      const pending = await cli.run(['agents', 'list', '--status', 'pending'], { ATRIUM_TOKEN: owner.session });
      assert.equal(pending.code, 0, pending.stderr);
      assert.match(pending.stdout, /ada-draft[\s\S]*bob-bot/);

      const added = await cli.run(['humans', 'add', 'cleo', 'cleo@example.test', '--display-name', 'Cleo'], { ATRIUM_TOKEN: owner.session });
      assert.equal(added.code, 0, added.stderr);
      assert.match(added.stdout, /^Added cleo \(cleo@example\.test\)\./);
      assert.deepEqual(await handles('?type=human'), ['ada', 'cleo', 'olga']);
    });
  });
}
