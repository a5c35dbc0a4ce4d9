import type { Command } from 'commander';
import { client } from './command-kit.js';
import { resolveTarget, send } from './api.js';
import { printJson, printTable, say, time } from './output.js';

interface Options {
  host?: string;
  json?: boolean;
}

/**
 * `atrium oauth-grants`: the programs a person allowed on the consent page
 * (docs/oauth.md). Like `atrium credentials`, these need the session from
 * `atrium sign-in`: a key or a grant's own token cannot list or revoke grants.
 */
export function registerOAuthGrants(program: Command): void {
  const grants = program.command('oauth-grants').description('programs you allowed to connect by URL (needs a sign-in session)');

  client(grants, 'list', 'list the programs you allowed, newest first, revoked ones too').action(async (opts: Options) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/oauth-grants'));
    if (opts.json) return printJson(body);
    printTable(
      ['ID', 'PROGRAM', 'ACTS AS', 'ACCESS', 'SPACES', 'LAST USED', 'REVOKED'],
      body.grants.map((g) => [
        g.id,
        g.client_name,
        g.acting_member,
        g.scope === 'read' ? 'read' : 'read, write',
        g.spaces === null ? 'all' : g.spaces.join(', '),
        time(g.last_used_ts),
        time(g.revoked_ts),
      ]),
      'No programs are connected.',
    );
  });

  client(grants, 'revoke <id>', "revoke a program's grant; its tokens stop at once").action(async (id: string, opts: Options) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/oauth-grants/{id}/revoke', { params: { path: { id } } }));
    if (opts.json) return printJson(body);
    say(`Revoked ${body.id}: "${body.client_name}" no longer acts as ${body.acting_member}.`);
  });
}
