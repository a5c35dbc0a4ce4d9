import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRefusal, CliRunner } from './support/cli.js';
import { createResource, TestRepository } from './support/pins.js';
import { backends, startServer, STEWARD_KEY, type TestServer } from './support/server.js';

/** `atrium pins …` and `atrium front-page` run as a child process against a real server (docs/pins.md). */
for (const backend of backends()) {
  describe(`atrium pins (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let repo: TestRepository;
    let owner: { handle: string; session: string };
    let ada: { handle: string; session: string };

    before(async () => {
      repo = new TestRepository();
      repo.commit('docs', { 'README.md': '# Welcome\n\nRead \x1b[31mthis\x1b[0m first.\n' });
      server = await startServer(backend, { env: { ATRIUM_REPOSITORY_PATH: repo.path } });
      owner = await server.human('olga', { role: 'owner' });
      ada = await server.human('ada');
      assert.equal((await server.request('POST', '/v0/spaces', { token: owner.session, body: { slug: 'forge', name: 'Forge' } })).status, 201);
      assert.equal((await server.request('POST', '/v0/spaces/forge/approve', { token: STEWARD_KEY })).status, 200);
      cli = new CliRunner(server.url);
    });
    after(async () => {
      await cli.cleanup();
      await server.stop();
      repo.remove();
    });

    it('sets, appends and lists pins, prints the front page, and proposes, accepts and declines', async () => {
      const asOwner = { ATRIUM_TOKEN: owner.session };
      const asAda = { ATRIUM_TOKEN: ada.session };
      const guide = await createResource(server, 'forge', ada.session, 'Guide', '# Guide\n\nHow we work.\n');
      const faq = await createResource(server, 'forge', ada.session, 'FAQ', '# FAQ\n');
      const notes = await createResource(server, 'forge', ada.session, 'Notes', '# Notes\n');

      // A host with a repository says so in discovery, so clients offer repository pins.
      assert.deepEqual((await server.request('GET', '/v0')).body.features, { repository_pins: true });
      const set = await cli.run(['pins', 'set', 'forge', 'repo:README.md', guide, '--reason', 'README first'], asOwner);
      assert.equal(set.code, 0, set.stderr);
      assert.equal(set.stdout, `Pins of forge: 1. repo:README.md  2. ${guide}\n`);

      const listed = await cli.run(['pins', 'list', 'forge']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^#\s+KIND\s+ENTRY\s+NAME\s+SHOWS$/m);
      assert.match(listed.stdout, /^1\s+repository\s+repo:README\.md\s+README\.md\s+main@[0-9a-f]{12}$/m);
      assert.match(listed.stdout, new RegExp(`^2\\s+resource\\s+${guide}\\s+Guide\\s+version 1$`, 'm'));

      const page = await cli.run(['front-page', 'forge']);
      assert.equal(page.code, 0, page.stderr);
      assert.match(page.stdout, /^\[1\] README\.md {2}\(repository file, main@[0-9a-f]{12}\)\n\n# Welcome\n\nRead �\[31mthis�\[0m first\.\n\n/);
      assert.ok(page.stdout.endsWith(`[2] Guide  (Resource ${guide}, version 1)\n\n# Guide\n\nHow we work.\n`), page.stdout);
      assert.ok(!page.stdout.includes('\x1b'), 'control characters from pinned content never reach the terminal');

      const proposedOut = await cli.run(['pins', 'propose', 'forge', faq, '--rationale', 'Questions come up daily'], asAda);
      assert.equal(proposedOut.code, 0, proposedOut.stderr);
      const id = /^Proposed pinning \S+ in forge: proposal (\d+) is pending\.$/m.exec(proposedOut.stdout)?.[1];
      assert.ok(id, proposedOut.stdout);
      const accepted = await cli.run(['pins', 'accept', 'forge', id], asOwner);
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.equal(accepted.stdout, `Accepted pin proposal ${id}: ${faq} is pinned in forge.\n`);

      const second = await cli.run(['pins', 'propose', 'forge', notes, '--rationale', 'Meeting notes'], asAda);
      const secondId = /proposal (\d+) is pending/.exec(second.stdout)?.[1];
      assert.ok(secondId, second.stdout + second.stderr);
      const declined = await cli.run(['pins', 'decline', 'forge', secondId, '--reason', 'Too busy'], asOwner);
      assert.equal(declined.code, 0, declined.stderr);
      assert.equal(declined.stdout, `Declined pin proposal ${secondId} (${notes}).\n`);
      const history = await cli.run(['pins', 'proposals', 'forge']);
      assert.equal(history.code, 0, history.stderr);
      assert.match(history.stdout, new RegExp(`^${secondId}\\s+${notes}\\s+declined\\s+ada\\s+olga\\s+\\S+\\s+Meeting notes \\(declined: Too busy\\)$`, 'm'));
      assert.match(history.stdout, new RegExp(`^${id}\\s+${faq}\\s+accepted\\s+ada\\s+olga\\s+\\S+\\s+Questions come up daily$`, 'm'));

      const appended = await cli.run(['pins', 'append', 'forge', notes, '--json'], asOwner);
      assert.equal(appended.code, 0, appended.stderr);
      assert.deepEqual(JSON.parse(appended.stdout).pinned_resources, ['repo:README.md', guide, faq, notes]);

      const [usage, refused, cleared] = [
        await cli.run(['pins', 'set', 'forge'], asOwner),
        await cli.run(['pins', 'append', 'forge', 'repo:README.md'], asOwner),
        await cli.run(['pins', 'set', 'forge', '--clear'], asOwner),
      ];
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--clear/);
      assertRefusal(refused, 422);
      assert.equal(cleared.code, 0, cleared.stderr);
      assert.equal(cleared.stdout, 'Nothing is pinned in forge.\n');
    });
  });
}
