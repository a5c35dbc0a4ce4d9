import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRefusal, CliRunner } from './support/cli.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/** `atrium webhooks endpoints …` run as child processes against a real server and a receiver on loopback. */
for (const backend of backends()) {
  describe(`atrium webhooks endpoints (${backend})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let cli: CliRunner;
    let asAda: Record<string, string>;
    before(async () => {
      server = await startServer(backend, { env: { ATRIUM_EGRESS_ALLOW_CIDRS: '127.0.0.0/8' } });
      receiver = await WebhookReceiver.start(server.url);
      cli = new CliRunner(server.url);
      asAda = { ATRIUM_TOKEN: (await server.human('ada')).session };
    });
    after(async () => {
      await cli.cleanup();
      await receiver.stop();
      await server.stop();
    });

    it('adds, lists, verifies and deletes an endpoint', async () => {
      const empty = await cli.run(['webhooks', 'endpoints', 'list'], asAda);
      assert.equal(empty.code, 0, empty.stderr);
      assert.match(empty.stdout, /No webhook endpoints yet/);

      const added = await cli.run(['webhooks', 'endpoints', 'add', receiver.url('/cli')], asAda);
      assert.equal(added.code, 0, added.stderr);
      const [, id] = /^Registered (whep_[a-z2-7]{26}) for (\S+) \(unverified\)\./m.exec(added.stdout) ?? [];
      assert.ok(id, added.stdout);
      assert.match(added.stdout, new RegExp(`atrium webhooks endpoints verify ${id}`));

      const verified = await cli.run(['webhooks', 'endpoints', 'verify', id!], asAda);
      assert.equal(verified.code, 0, verified.stderr);
      assert.equal(verified.stdout, `${id} is active: ${receiver.url('/cli')} answered the challenge.\n`);
      assert.equal(receiver.received.at(-1)!.signatureValid, true);

      const listed = await cli.run(['webhooks', 'endpoints', 'list', '--json'], asAda);
      assert.deepEqual(
        (JSON.parse(listed.stdout) as { endpoints: Array<{ id: string; status: string }> }).endpoints.map((e) => [e.id, e.status]),
        [[id, 'active']],
      );

      const deleted = await cli.run(['webhooks', 'endpoints', 'delete', id!], asAda);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout, `Deleted ${id}.\n`);
      const again = await cli.run(['webhooks', 'endpoints', 'delete', id!], asAda);
      assert.equal(assertRefusal(again, 404), 'webhook_endpoint_not_found');
    });

    it('says why a URL is refused or a challenge fails', async () => {
      const refused = await cli.run(['webhooks', 'endpoints', 'add', 'https://192.168.0.10/hook'], asAda);
      assert.equal(assertRefusal(refused, 422), 'webhook_url_refused');
      // Why is the point: the detail names the address and the rule it breaks.
      assert.match(refused.stderr, /192\.168\.0\.10 is not a public address \(private network\)/);

      receiver.behaviours.set('/cli-wrong', (_req, res) => res.writeHead(404).end());
      const added = await cli.run(['webhooks', 'endpoints', 'add', receiver.url('/cli-wrong'), '--json'], asAda);
      const { id } = JSON.parse(added.stdout) as { id: string };
      const failed = await cli.run(['webhooks', 'endpoints', 'verify', id], asAda);
      assert.equal(assertRefusal(failed, 422), 'challenge_failed');
      // Why is the point: the detail says what the receiver answered.
      assert.match(failed.stderr, /the challenge failed: the receiver answered 404, not 2xx/);
    });
  });
}
