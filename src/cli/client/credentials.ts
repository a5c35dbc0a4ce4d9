import type { Command } from 'commander';
import { resolveTarget, send } from './api.js';
import { client, group, type CommonOptions } from './command-kit.js';
import { readCredentials } from './credentials-file.js';
import { printJson, printTable, say, time } from './output.js';

export function registerCredentials(program: Command): void {
  const credentials = group(program, 'credentials', 'API keys minted for your clients (needs a sign-in session)');

  client(credentials, 'list', 'list your API credentials').action(async (opts: CommonOptions) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/credentials'));
    if (opts.json) return printJson(body);
    printTable(
      ['ID', 'CLIENT', 'KEY', 'CREATED', 'LAST USED', 'REVOKED'],
      body.credentials.map((c) => [c.id, c.client_name, `${c.key_prefix}…`, time(c.created_ts), time(c.last_used_ts), time(c.revoked_ts)]),
      'No API credentials.',
    );
  });

  client(credentials, 'revoke <id>', 'revoke one of your API credentials; it stops working at once').action(async (id: string, opts: CommonOptions) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/credentials/{id}/revoke', { params: { path: { id } } }));
    if (opts.json) return printJson(body);
    say(`Revoked ${body.id} (${body.client_name}).`);
    const stored = storedQuietly();
    if (stored?.key.startsWith(body.key_prefix)) say('That was the key stored by "atrium login"; run "atrium logout" to forget it.');
  });
}

function storedQuietly() {
  try {
    return readCredentials();
  } catch {
    return undefined;
  }
}
