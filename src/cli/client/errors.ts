import { CommanderError } from 'commander';

/**
 * A failed API call. `main` prints an Error's message after `atrium: ` and
 * exits 1, so the message is the whole line the user sees.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`${detail} (HTTP ${status})`);
    this.name = 'ApiError';
  }
}

/** The host could not be reached, or did not answer like an Atrium host. Exit 1. */
export class ClientError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientError';
  }
}

/** The request never got an HTTP answer; worth retrying when following a feed. */
export class ConnectionError extends ClientError {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionError';
  }
}

/**
 * A usage error: exit 2. `main` returns a CommanderError's exit code without
 * printing anything, so the line is written here.
 */
export function usageError(message: string): CommanderError {
  process.stderr.write(`atrium: ${message}\n`);
  return new CommanderError(2, 'atrium.usage', message);
}
