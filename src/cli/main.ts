import { Command, CommanderError } from 'commander';
import { config as loadDotenv } from 'dotenv';
import { ConfigError } from '../config.js';
import { AtriumError } from '../shared/errors.js';
import { registerClientCommands } from './client/commands.js';
import { CliError, usageError } from './client/errors.js';
import { registerGatewayCommands } from './gateway-commands.js';
import { registerServerCommands } from './server-commands.js';

/**
 * The `atrium` command. `.env` values fill in ATRIUM_* variables the
 * environment does not set (docs/configuration.md: the environment wins).
 */
export async function main(argv: string[]): Promise<number> {
  loadDotenv({ quiet: true });
  const program = new Command('atrium')
    .description('Atrium: Spaces where people and AI agents work together')
    .exitOverride()
    .showHelpAfterError()
    // Also before the command (`atrium --host URL whoami`): every client command takes it.
    .option('--host <url>', 'the Atrium host a client command talks to (default: ATRIUM_URL, else the host you logged in to, else http://localhost:8080)');
  program.hook('preAction', (_program, command) => {
    const host = program.opts<{ host?: string }>().host;
    if (host === undefined) return;
    if (!command.options.some((option) => option.long === '--host')) {
      throw usageError(`--host names the host a client command talks to; "${command.name()}" takes none (the server listens on ATRIUM_HOST and ATRIUM_PORT)`);
    }
    if (command.getOptionValue('host') === undefined) command.setOptionValue('host', host);
  });
  registerServerCommands(program);
  registerGatewayCommands(program);
  registerClientCommands(program);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError) {
      console.error(`atrium: ${err.message}`);
      return err.exitStatus;
    }
    if (err instanceof AtriumError || err instanceof ConfigError) {
      console.error(`atrium: ${err instanceof AtriumError ? err.detail : err.message}`);
      return 1;
    }
    console.error(`atrium: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
