import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { usageError } from './errors.js';
import { printable } from './output.js';

/** A client command: every one talks to a host and can print the server's JSON. */
export function client(parent: Command, nameAndArgs: string, description: string): Command {
  return parent
    .command(nameAndArgs)
    .description(description)
    .option('--host <url>', 'the Atrium host (default: ATRIUM_URL, else the host you logged in to, else http://localhost:8080)')
    .option('--json', "print the server's JSON response instead of text");
}

/** Member-written text squeezed onto one table line, control characters made harmless. */
export function oneLine(text: string): string {
  return printable(text).replace(/\s+/g, ' ').trim();
}

export function positiveInteger(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

/** A record id from the command line: digits become a number, anything else goes as typed for the host to refuse (422). */
export function idArgument(id: string): number {
  return (/^\d+$/.test(id) ? Number(id) : id) as number;
}

export function nonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

/** A number of seconds, zero allowed. */
export function seconds(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds, 0 or more');
  return n;
}

/** The options every client command takes. */
export interface CommonOptions {
  host?: string;
  json?: boolean;
}

/** A command group (`spaces`, `agents`…): its subcommands do the work. */
export function group(program: Command, name: string, description: string): Command {
  return program.command(name).description(description);
}

/** For repeatable options. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A file's text, `-` for stdin; a file it cannot read is a usage error. */
export function readText(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw usageError(`cannot read ${path === '-' ? 'stdin' : path}: ${(err as Error).message}`);
  }
}
