import { Command, CommanderError } from 'commander';
import { config as loadDotenv } from 'dotenv';
import { ConfigError } from '../config.js';
import { AtriumError } from '../shared/errors.js';
import { registerClientCommands } from './client/commands.js';
import { CliError } from './client/errors.js';
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
    .showHelpAfterError();
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
