import type { Command } from 'commander';
import { notSignedIn, resolveTarget, send } from './api.js';
import { usageError } from './errors.js';
import { printJson } from './output.js';

interface Options {
  host?: string;
  name: string;
}

/**
 * `atrium mcp-config`: the MCP client configuration for the member the CLI
 * acts as (docs/mcp.md). The credential is checked against the host first, so
 * what is printed is known to work; the JSON alone goes to stdout, to be
 * redirected into a client's configuration file.
 */
export function registerMcpConfig(program: Command): void {
  program
    .command('mcp-config')
    .description('print an MCP client configuration (URL and Authorization header) for the member you are logged in as')
    .option('--host <url>', 'the Atrium host (default: ATRIUM_URL, else the host you logged in to, else http://localhost:8080)')
    .option('--name <name>', 'the server name in the configuration', 'atrium')
    .action(async (opts: Options) => {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(opts.name)) throw usageError('--name takes 1-64 letters, digits, "-" or "_"');
      const target = resolveTarget(opts.host);
      if (!target.token) return notSignedIn(target);
      const { body: me } = await send(target, (api) => api.GET('/v0/me'));
      const kind = target.token.startsWith('st_atrium_') ? 'a sign-in session token, which expires; "atrium login" gives a lasting key' : 'an API key';
      process.stderr.write(
        `MCP configuration for ${me.handle} on ${target.host}. It holds ${kind}: keep it as private as the key itself.\n`,
      );
      printJson({
        mcpServers: {
          [opts.name]: {
            type: 'http',
            url: `${target.host}/v0/mcp`,
            headers: { Authorization: `Bearer ${target.token}` },
          },
        },
      });
    });
}
