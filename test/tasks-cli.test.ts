import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRefusal, CliRunner } from './support/cli.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

/** `atrium tasks …` run as a child process against a real server (docs/tasks.md, CLI). */
for (const backend of backends()) {
  describe(`atrium tasks (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let ada: { handle: string; session: string };
    let bob: { handle: string; session: string };

    before(async () => {
      server = await startServer(backend);
      ada = await server.human('ada');
      bob = await server.human('bob');
      const owner = await server.human('olga', { role: 'owner' });
      assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'forge', name: 'Forge' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/forge/approve', { token: STEWARD_KEY })).status, 200);
      cli = new CliRunner(server.url);
    });
    after(async () => {
      await cli.cleanup();
      await server.stop();
    });

    it('creates, lists, claims, submits, completes (with provenance) and discusses a task', async () => {
      const asAda = { ATRIUM_TOKEN: ada.session };
      const asBob = { ATRIUM_TOKEN: bob.session };
      const created = await cli.run(['tasks', 'create', 'forge', '--kind', 'evidence', '--title', 'Check \x1b[31mthe\x1b[0m numbers', '--body', '# Why\nBecause.'], asAda);
      assert.equal(created.code, 0, created.stderr);
      const id = /^Created task (\d+) \(evidence\) in forge\.$/m.exec(created.stdout)?.[1];
      assert.ok(id, created.stdout);

      const listed = await cli.run(['tasks', 'list', 'forge']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^ID\s+KIND\s+STATUS\s+CLAIMANT\s+CREATED BY\s+TITLE$/m);
      assert.match(listed.stdout, new RegExp(`^${id}\\s+evidence\\s+open\\s+-\\s+ada\\s+Check �\\[31mthe�\\[0m numbers$`, 'm'));
      assert.ok(!listed.stdout.includes('\x1b'), 'control characters from member text never reach the terminal');

      const claimed = await cli.run(['tasks', 'claim', 'forge', id], asBob);
      assert.equal(claimed.code, 0, claimed.stderr);
      assert.equal(claimed.stdout, `Task ${id} is now claimed (claimant bob).\n`);
      const again = await cli.run(['tasks', 'claim', 'forge', id], asAda);
      assertRefusal(again, 409);
      assert.equal((await cli.run(['tasks', 'submit', 'forge', id], asBob)).code, 0);

      const selfReview = await cli.run(['tasks', 'complete', 'forge', id], asBob);
      assertRefusal(selfReview, 403);
      const completed = await cli.run(['tasks', 'complete', 'forge', id], asAda);
      assert.equal(completed.code, 0, completed.stderr);
      assert.equal(completed.stdout, `Task ${id} is completed by ada: work by bob, assurance independent_principal (required independent_principal).\n`);

      const [shown, json] = await Promise.all([cli.run(['tasks', 'get', 'forge', id]), cli.run(['tasks', 'get', 'forge', id, '--json'])]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /^status:\s+completed$/m);
      assert.match(shown.stdout, /^worker:\s+bob$/m);
      assert.match(shown.stdout, /^assurance:\s+independent_principal \(required independent_principal\)$/m);
      assert.match(shown.stdout, /^body:\n {2}# Why\n {2}Because\.$/m);
      assert.equal(JSON.parse(json.stdout).completion.completer, 'ada');

      const discussed = await cli.run(['tasks', 'discuss', 'forge', id, 'Thanks @bob'], asAda);
      assert.equal(discussed.code, 0, discussed.stderr);
      // Mentions are reported as `post` reports them.
      assert.match(discussed.stdout, new RegExp(`^Posted message \\d+ to the discussion of task ${id} in forge \\(mentioned: bob\\)\\.$`, 'm'));
      const discussion = await cli.run(['tasks', 'discussion', 'forge', id]);
      assert.equal(discussion.code, 0, discussion.stderr);
      assert.match(discussion.stdout, /^\d+\s+ada\s+\S+\s+Thanks @bob$/m);

      const [usage, anonymous] = await Promise.all([
        cli.run(['tasks', 'create', 'forge', '--title', 'no kind'], asAda),
        cli.run(['tasks', 'cancel', 'forge', id]),
      ]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--kind/);
      assert.equal(anonymous.code, 3);
      assert.match(anonymous.stderr, /^atrium: not logged in/);
    });
  });
}
