import { CommanderError } from 'commander';

/**
 * The exit status of a client command, one per class of failure, so a script
 * can tell a typo from a refusal and a refusal from a host that is down
 * (docs/cli.md, "Errors and exit statuses").
 */
export const EXIT = {
  failure: 1,
  usage: 2,
  credential: 3,
  forbidden: 4,
  notFound: 5,
  conflict: 6,
  unavailable: 7,
  interrupted: 130,
} as const;

/**
 * A failure `main` reports on one line, `atrium: ` and the message, and
 * answers with its exit status.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitStatus: number = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The exit status for a refusal with this HTTP status. */
export function exitStatusFor(status: number): number {
  if (status === 401) return EXIT.credential;
  if (status === 403) return EXIT.forbidden;
  if (status === 404 || status === 410) return EXIT.notFound;
  if (status === 409 || status === 412) return EXIT.conflict;
  if (status >= 500) return EXIT.unavailable;
  return EXIT.failure;
}

/**
 * A refusal from an Atrium host: its HTTP status, its `detail` and, when the
 * host names one (the `Atrium-Error` header), its error code. Scripts and the
 * commands themselves branch on the status and the code, never on the prose.
 */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code?: string,
    hint = '',
  ) {
    super(`${code ? `[${code}] ` : ''}${detail} (HTTP ${status})${hint}`, exitStatusFor(status));
    this.name = 'ApiError';
  }
}

/** A failure on this side of the wire (a file it cannot read, an answer it cannot use). Exit 1 unless said otherwise. */
export class ClientError extends CliError {
  constructor(message: string, exitStatus: number = EXIT.failure) {
    super(message, exitStatus);
    this.name = 'ClientError';
  }
}

/**
 * Nothing answered at the host's URL, or what answered is not an Atrium host;
 * worth retrying when following a feed. Exit 7.
 */
export class ConnectionError extends ClientError {
  constructor(message: string) {
    super(message, EXIT.unavailable);
    this.name = 'ConnectionError';
  }
}

/** No credential for an operation that needs one. Exit 3. */
export class NotSignedInError extends ClientError {
  constructor(message: string) {
    super(message, EXIT.credential);
    this.name = 'NotSignedInError';
  }
}

/**
 * A usage error: exit 2. `main` returns a CommanderError's exit code without
 * printing anything, so the line is written here.
 */
export function usageError(message: string): CommanderError {
  process.stderr.write(`atrium: ${message}\n`);
  return new CommanderError(EXIT.usage, 'atrium.usage', message);
}
