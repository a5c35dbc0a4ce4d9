import type { Command } from 'commander';
import { resolveTarget, send, type Target } from './api.js';
import { client, type CommonOptions } from './command-kit.js';
import { login, logout } from './login.js';
import { memberFields } from './members.js';
import { printJson, printRecord } from './output.js';
import { signIn, signOut } from './sign-in.js';

/** Who the CLI acts as: `login`, `logout`, `sign-in`, `sign-out` and `whoami`. */
export function registerAccount(program: Command): void {
  program
    .command('login')
    .description('sign this computer in: approve it in your browser, then the key is stored for later commands')
    .option('--host <url>', 'the Atrium host (default: ATRIUM_URL, else the host you last logged in to, else http://localhost:8080)')
    .option('--client-name <name>', 'how this client appears in your list of API credentials')
    .option('--no-browser', 'only print the approval page; do not open a browser')
    .option('--json', 'print the result as JSON on stdout (instructions go to stderr)')
    .action(async (opts: CommonOptions & { clientName?: string; browser: boolean }) => {
      await login({ ...opts, browser: opts.browser });
    });

  program
    .command('logout')
    .description('forget the stored key (it stays valid until revoked)')
    .option('--host <url>', 'only if the stored key is for this host')
    .action((opts: { host?: string }) => logout(opts));

  program
    .command('sign-in')
    .description('start a sign-in session with a code mailed to you, for what an API key may not do (review policy, roles, credentials)')
    .option('--host <url>', 'the Atrium host (default: ATRIUM_URL, else the host you logged in to, else http://localhost:8080)')
    .option('--email <address>', 'your e-mail address (asked for when not given)')
    .option('--json', 'print the result as JSON on stdout (prompts go to stderr)')
    .action(async (opts: CommonOptions & { email?: string }) => {
      await signIn(opts);
    });

  program
    .command('sign-out')
    .description('end the session started by "atrium sign-in" and forget it')
    .option('--host <url>', 'only if the session is for this host')
    .action(async (opts: { host?: string }) => {
      await signOut(opts);
    });

  client(program, 'whoami', 'show who the CLI acts as (GET /v0/me)').action(async (opts: CommonOptions) => {
    const target = resolveTarget(opts.host);
    const { body: me } = await send(target, (api) => api.GET('/v0/me'));
    if (opts.json) return printJson(me);
    printRecord([...memberFields(me), ['host', target.host], ['credential', describeCredential(target)]]);
  });
}

function describeCredential(target: Target): string {
  if (target.tokenSource === 'ATRIUM_TOKEN') {
    const token = target.token ?? '';
    const kind = token.startsWith('st_atrium_') ? 'session token' : token.startsWith('sk_atrium_') ? 'API key' : 'token';
    return `${kind} from ATRIUM_TOKEN`;
  }
  return target.tokenSource === 'stored' ? 'API key stored by "atrium login"' : 'none';
}
