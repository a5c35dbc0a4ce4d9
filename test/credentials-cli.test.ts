import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertRefusal, CliRunner } from './support/cli.js';
import { answers, destinationFor, startGateway, startUpstream, type TestGateway, type Upstream } from './support/gateway.js';
import { seedAgent } from './support/seed.js';
import { backends, startServer, type TestServer } from './support/server.js';
import { activeSpace } from './support/spaces.js';

/**
 * `atrium connections list`, `atrium approvals create` and `atrium call`, run
 * as child processes against a real server, the real gateway and a provider
 * on loopback.
 */
for (const backend of backends()) {
  describe(`atrium connections, approvals and call (${backend})`, () => {
    let upstream: Upstream;
    let gateway: TestGateway;
    let server: TestServer;
    let cli: CliRunner;
    let dir: string;
    let asHost: Record<string, string>;
    let asBot: Record<string, string>;

    before(async () => {
      upstream = await startUpstream();
      upstream.answer('/v1/note', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'x-request-id': 'prov-9' }).end('Hello \u001b[31mred\u001b[0m world');
      });
      upstream.answer('/v1/blob', answers.json({ ok: true }));
      gateway = await startGateway({ backend, destinations: [destinationFor(upstream, { methods: ['GET', 'POST'] })], env: { PROVIDER_KEY: 'cli-provider-secret' } });
      dir = mkdtempSync(join(tmpdir(), 'atrium-credentials-cli-'));
      writeFileSync(
        join(dir, 'connections.json'),
        JSON.stringify({ connections: [{ id: 'notes', space: 'desk', destinationId: 'provider', allowedMemberTypes: ['agent'], maxTtlSeconds: 30, approvalRequiredMethods: ['POST'] }] }),
      );
      server = await startServer(backend, {
        env: { ATRIUM_CREDENTIAL_CONNECTIONS: join(dir, 'connections.json'), ATRIUM_GATEWAY_URL: gateway.url, ATRIUM_GATEWAY_ISSUER_KEY: gateway.issuerKey },
      });
      const ada = await server.human('ada', { role: 'owner' });
      await activeSpace(server, ada.session, 'desk');
      const bot = await seedAgent(server, 'desk-bot', 'ada', 'active');
      assert.equal((await server.request('POST', '/v0/spaces/desk/join', { token: bot.key })).status, 200);
      cli = new CliRunner(server.url);
      asHost = { ATRIUM_TOKEN: ada.session };
      asBot = { ATRIUM_TOKEN: bot.key };
    });
    after(async () => {
      await cli.cleanup();
      await server.stop();
      await gateway.stop();
      await upstream.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('lists the connections the caller may use', async () => {
      const listed = await cli.run(['connections', 'list', '--space', 'desk'], asBot);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout, 'ID     APPROVAL NEEDED FOR  TASK REQUIRED  MAX TTL\nnotes  POST                 no             30s\n');
      const none = await cli.run(['connections', 'list', '--space', 'desk'], asHost);
      assert.equal(assertRefusal(none, 403), 'not_admitted', 'the owner is not admitted');
    });

    it('calls, printing status, headers and a text body with control characters made harmless', async () => {
      const called = await cli.run(
        ['call', '--space', 'desk', '--connection', 'notes', '--method', 'get', '--url', upstream.url('/v1/note?lang=en'), '--header', 'X-Trace: t-1', '--run-id', 'cli-run-1', '--purpose', 'Read the note'],
        asBot,
      );
      assert.equal(called.code, 0, called.stderr);
      assert.match(called.stdout, /^status: +200$/m);
      assert.match(called.stdout, /^run id: +cli-run-1$/m);
      assert.match(called.stdout, /^provider request id: +prov-9$/m);
      assert.match(called.stdout, /^content-type: +text\/plain$/m);
      assert.match(called.stdout, /\n\nHello \uFFFD\[31mred\uFFFD\[0m world\n$/);
      const got = upstream.received.at(-1)!;
      assert.equal(got.url, '/v1/note?lang=en');
      assert.equal(got.headers['x-trace'], 't-1');
      assert.equal(got.headers.authorization, 'Bearer cli-provider-secret');

      const again = await cli.run(['call', '--space', 'desk', '--connection', 'notes', '--method', 'GET', '--url', upstream.url('/v1/note?lang=en'), '--run-id', 'cli-run-1', '--purpose', 'Read the note again'], asBot);
      assert.equal(assertRefusal(again, 409), 'run_id_reused');
    });

    it('an Owner/Host approves a POST, and the agent makes it once with the approval and a body file', async () => {
      const bodyFile = join(dir, 'body.bin');
      writeFileSync(bodyFile, Buffer.from([0xff, 0x00, 0x41]));
      const request = ['--space', 'desk', '--connection', 'notes', '--method', 'POST', '--url', upstream.url('/v1/blob'), '--header', 'content-type:application/octet-stream', '--body-file', bodyFile, '--run-id', 'cli-post', '--purpose', 'Upload the blob'];
      const refused = await cli.run(['call', ...request], asBot);
      assert.equal(assertRefusal(refused, 403), 'approval_required');

      const approved = await cli.run(['approvals', 'create', ...request, '--member', 'desk-bot', '--reason', 'One upload', '--expires-in', '600', '--json'], asHost);
      assert.equal(approved.code, 0, approved.stderr);
      const approval = JSON.parse(approved.stdout) as { id: string; header_names: string[]; status: string };
      assert.equal(approval.status, 'issued');
      assert.deepEqual(approval.header_names, ['content-type']);

      const made = await cli.run(['call', ...request, '--approval', approval.id, '--json'], asBot);
      assert.equal(made.code, 0, made.stderr);
      assert.equal(JSON.parse(made.stdout).status, 200);
      assert.deepEqual([...upstream.received.at(-1)!.body], [0xff, 0x00, 0x41], 'the file went as its exact bytes');

      const twice = await cli.run(['call', ...request, '--run-id', 'cli-post-2', '--approval', approval.id], asBot);
      assert.equal(assertRefusal(twice, 403), 'approval_invalid', 'an approval binds its run id');

      const unexplained = await cli.run(['call', '--space', 'desk', '--connection', 'notes', '--method', 'GET', '--url', upstream.url('/v1/note')], asBot);
      assert.equal(unexplained.code, 2, unexplained.stderr);
      assert.match(unexplained.stderr, /call needs --purpose/);

      const usage = await cli.run(['approvals', 'create', '--space', 'desk', '--connection', 'notes', '--method', 'GET', '--url', upstream.url('/v1/blob'), '--member', 'desk-bot', '--reason', 'why not'], asHost);
      assert.equal(usage.code, 2, usage.stderr);
      assert.match(usage.stderr, /needs --purpose/);
    });
  });
}
