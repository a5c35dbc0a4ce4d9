import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assertRefusal, CliRunner } from './support/cli.js';
import { seedAgent } from './support/seed.js';
import { backends, startServer, type TestServer } from './support/server.js';

const CODE_LINE = /^ {4}([A-Z0-9]{4}-[A-Z0-9]{4})$/m;

interface McpConfig {
  mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
}

/** What an MCP client does with the printed configuration: connect, and ask who it is. */
async function whoIsConfigured(config: McpConfig, name = 'atrium'): Promise<string> {
  const entry = config.mcpServers[name];
  assert.ok(entry, `a server named ${name}`);
  assert.equal(entry.type, 'http');
  const client = new Client({ name: 'configured-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }));
  try {
    const result = await client.callTool({ name: 'get_me', arguments: {} });
    assert.ok(!result.isError);
    return (result.structuredContent as { handle: string }).handle;
  } finally {
    await client.close();
  }
}

for (const backend of backends()) {
  describe(`atrium mcp-config (${backend})`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let ada: { handle: string; session: string };

    before(async () => {
      // One-second polls keep the login round trip short.
      server = await startServer(backend, { env: { ATRIUM_ACTIVATION_POLL_SECONDS: '1' } });
      ada = await server.human('ada');
      cli = new CliRunner(server.url);
    });

    after(async () => {
      await cli.cleanup();
      await server.stop();
    });

    it('refuses to print anything before a login', async () => {
      const res = await cli.run(['mcp-config']);
      assert.equal(res.code, 3);
      assert.equal(res.stdout, '');
      assert.match(res.stderr, /not logged in to .*: run "atrium login" or set ATRIUM_TOKEN/);
    });

    it('prints a working configuration for the logged-in member', async () => {
      const login = cli.spawn(['login', '--client-name', 'mcp test']);
      const [, code] = await login.waitForStdout(CODE_LINE);
      assert.equal((await server.request('POST', `/v0/client-activations/${code}/approve`, { token: ada.session })).status, 200);
      assert.equal((await login.exited).code, 0);

      const res = await cli.run(['mcp-config']);
      assert.equal(res.code, 0, res.stderr);
      const config = JSON.parse(res.stdout) as McpConfig;
      assert.deepEqual(Object.keys(config.mcpServers), ['atrium']);
      assert.equal(config.mcpServers.atrium!.url, `${server.url}/v0/mcp`);
      assert.match(config.mcpServers.atrium!.headers.Authorization!, /^Bearer sk_atrium_/);
      assert.match(res.stderr, /MCP configuration for ada on .*keep it as private as the key itself/);
      assert.equal(await whoIsConfigured(config), 'ada');
    });

    it('uses ATRIUM_TOKEN and --name, and refuses a key the host does not know', async () => {
      await server.human('op');
      const agent = await seedAgent(server, 'helper', 'op', 'active');
      const res = await cli.run(['mcp-config', '--name', 'atrium-helper'], { ATRIUM_TOKEN: agent.key });
      assert.equal(res.code, 0, res.stderr);
      const config = JSON.parse(res.stdout) as McpConfig;
      assert.equal(config.mcpServers['atrium-helper']!.headers.Authorization, `Bearer ${agent.key}`);
      assert.equal(await whoIsConfigured(config, 'atrium-helper'), 'helper');

      const unknown = await cli.run(['mcp-config'], { ATRIUM_TOKEN: 'sk_atrium_unknownunknownunknownunknownunknown00' });
      assertRefusal(unknown, 401);
      assert.equal(unknown.stdout, '');

      const badName = await cli.run(['mcp-config', '--name', 'two words'], { ATRIUM_TOKEN: agent.key });
      assert.equal(badName.code, 2);
    });
  });
}
