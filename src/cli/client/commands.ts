import { Command, CommanderError } from 'commander';
import { registerAccount } from './account.js';
import { registerAgents } from './agents.js';
import { registerApi } from './api-command.js';
import { client, type CommonOptions } from './command-kit.js';
import { registerCredentials } from './credentials.js';
import { EXIT } from './errors.js';
import { feedOptions, listEvents, type EventsOptions } from './events.js';
import { registerExternalCallCommands } from './external-calls.js';
import { registerMcpConfig } from './mcp.js';
import { registerMembers } from './members.js';
import { registerMessageCommands } from './messages.js';
import { registerOAuthGrants } from './oauth-grants.js';
import { registerPins } from './pins.js';
import { registerReactionCommands } from './reactions.js';
import { registerReadMarkCommands } from './read-marks.js';
import { registerResources } from './resources.js';
import { registerRoles } from './roles.js';
import { registerSearch } from './search.js';
import { registerSpaces } from './spaces.js';
import { registerTasks } from './tasks.js';
import { registerWebhookCommands } from './webhooks.js';
import { resolveTarget } from './api.js';

/**
 * The client half of the `atrium` command: every command here talks to a
 * host over the public HTTP API, exactly as any other client would. One file
 * per command group.
 */
export function registerClientCommands(program: Command): void {
  // Usage errors exit 2, apart from the statuses of refusals (docs/cli.md), so scripts can tell a typo from a refusal.
  program.exitOverride((err) => {
    if (err.code === 'commander.executeSubCommandAsync') return;
    throw err.exitCode === 0 ? err : new CommanderError(EXIT.usage, err.code, err.message);
  });

  registerAccount(program);
  registerSpaces(program);
  registerAgents(program);
  registerMembers(program);
  registerRoles(program);
  registerCredentials(program);
  registerOAuthGrants(program);
  registerTasks(program);
  registerMessageCommands(program);
  registerReactionCommands(program);
  registerReadMarkCommands(program);
  registerResources(program);
  registerSearch(program);
  registerPins(program);
  registerWebhookCommands(program);
  registerExternalCallCommands(program);

  feedOptions(client(program, 'events [slug]', "print a Space's event feed; without a Space, the host-wide feed (Owner/Host or steward key)")).action(
    async (slug: string | undefined, opts: CommonOptions & EventsOptions) => {
      await listEvents(resolveTarget(opts.host), slug, opts);
    },
  );

  registerApi(program);
  registerMcpConfig(program);
}
