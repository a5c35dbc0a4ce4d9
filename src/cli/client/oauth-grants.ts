import type { Command } from 'commander';
import { client } from './command-kit.js';
import { callOperation, resolveTarget } from './api.js';
import { printJson, printTable, say, time } from './output.js';

interface Options {
  host?: string;
  json?: boolean;
}

interface OAuthGrant {
  id: string;
  client_id: string;
  client_name: string;
  acting_member: string;
  scope: string;
  spaces: string[] | null;
  created_ts: string;
  last_used_ts: string | null;
  revoked_ts: string | null;
}

/**
 * `atrium oauth-grants`: the programs a person allowed on the consent page
 * (docs/oauth.md). Like `atrium credentials`, these need the session from
 * `atrium sign-in`: a key or a grant's own token cannot list or revoke grants.
 */
export function registerOAuthGrants(program: Command): void {
  const grants = program.command('oauth-grants').description('programs you allowed to connect by URL (needs a sign-in session)');

  client(grants, 'list', 'list the programs you allowed, newest first, revoked ones too').action(async (opts: Options) => {
    const { body } = await callOperation<{ grants: OAuthGrant[] }>(resolveTarget(opts.host), 'list_oauth_grants');
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
    const { body } = await callOperation<OAuthGrant>(resolveTarget(opts.host), 'revoke_oauth_grant', { params: { id }, body: {} });
    if (opts.json) return printJson(body);
    say(`Revoked ${body.id}: "${body.client_name}" no longer acts as ${body.acting_member}.`);
  });
}
