import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRefusal, CliRunner } from './support/cli.js';
import { activeSpace } from './support/spaces.js';
import { backends, startServer, type TestServer } from './support/server.js';

/** `atrium react` and `atrium unreact`, run as a child process against a real server. */
for (const backend of backends()) {
  describe(`atrium react, unreact (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let ada: { handle: string; session: string };
    let ben: { handle: string; session: string };
    let id: number;

    before(async () => {
      server = await startServer(backend);
      cli = new CliRunner(server.url);
      ada = await server.human('ada');
      ben = await server.human('ben');
      await activeSpace(server, ada.session, 'plaza');
      const posted = await server.request('POST', '/v0/spaces/plaza/channels/general/messages', { token: ada.session, body: { body: 'ship it?' } });
      assert.equal(posted.status, 201);
      id = posted.body.id;
    });
    after(async () => {
      await cli.cleanup();
      await server.stop();
    });

    it('reacts, shows the reactions under the message, and takes one back', async () => {
      const reacted = await cli.run(['react', 'plaza', String(id), '🚀'], { ATRIUM_TOKEN: ben.session });
      assert.equal(reacted.code, 0, reacted.stderr);
      assert.equal(reacted.stdout, `Reacted to message ${id}: 🚀 1\n`);
      const json = await cli.run(['react', 'plaza', String(id), '👍', '--json'], { ATRIUM_TOKEN: ada.session });
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual(JSON.parse(json.stdout).reactions, [
        { emoji: '🚀', count: 1, members: ['ben'] },
        { emoji: '👍', count: 1, members: ['ada'] },
      ]);

      const listed = await cli.run(['messages', 'plaza', 'general'], { ATRIUM_TOKEN: ada.session });
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, / {2}ship it\?\n {2}🚀 1 {2}👍 1\n/);

      const taken = await cli.run(['unreact', 'plaza', String(id), '🚀'], { ATRIUM_TOKEN: ben.session });
      assert.equal(taken.code, 0, taken.stderr);
      assert.equal(taken.stdout, `Message ${id}: 👍 1\n`);
    });

    it('reports a refused emoji with its code', async () => {
      const refused = await cli.run(['react', 'plaza', String(id), 'yes'], { ATRIUM_TOKEN: ben.session });
      assert.equal(assertRefusal(refused, 422), 'emoji_invalid');
      const missing = await cli.run(['react', 'plaza', '999999', '👍'], { ATRIUM_TOKEN: ben.session });
      assert.equal(assertRefusal(missing, 404), 'message_not_found');
    });
  });
}
