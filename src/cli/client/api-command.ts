import type { Command } from 'commander';
import { resolveTarget, routesByName, sendRoute } from './api.js';
import { client, collect, readText, type CommonOptions } from './command-kit.js';
import { usageError } from './errors.js';
import { cell, printJson, printTable, type Cell } from './output.js';

/** `atrium api`: any operation by name, for what no command covers yet. */
export function registerApi(program: Command): void {
  client(program, 'api [operation]', 'call any API operation by name and print its JSON; without a name, list the operations')
    .option('--param <name=value>', 'a path parameter (repeatable)', collect, [] as string[])
    .option('--query <name=value>', 'a query parameter (repeatable)', collect, [] as string[])
    .option('--body <json>', 'the JSON request body; @file reads a file, @- reads stdin')
    .action(async (name: string | undefined, opts: CommonOptions & { param: string[]; query: string[]; body?: string }) => {
      const routes = routesByName();
      if (name === undefined) {
        const rows: Cell[][] = [...routes.values()].map((r) => [r.name, r.method, r.path, describeAuth(r.auth)]);
        return printTable(['OPERATION', 'METHOD', 'PATH', 'CREDENTIAL'], rows, 'No operations.');
      }
      const route = routes.get(name);
      if (!route) throw usageError(`no operation named ${name}; "atrium api" lists them`);
      const params = pairs(opts.param, '--param');
      const expected = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      for (const key of Object.keys(params)) {
        if (!expected.includes(key)) throw usageError(`${name} has no path parameter ${key} (it takes: ${expected.join(', ') || 'none'})`);
      }
      const missing = expected.filter((p) => params[p] === undefined);
      if (missing.length) throw usageError(`${name} needs ${missing.map((p) => `--param ${p}=…`).join(' ')}`);
      const { body } = await sendRoute(resolveTarget(opts.host), route, {
        params,
        query: pairs(opts.query, '--query'),
        ...(opts.body !== undefined ? { body: parseBody(opts.body) } : {}),
      });
      if (body !== undefined) printJson(body);
    });
}

function describeAuth(auth: { anonymous: boolean; schemes: string[] }): string {
  const names: Record<string, string> = { member_key: 'key', session: 'session', steward_key: 'steward' };
  const parts = auth.schemes.map((s) => names[s] ?? s);
  if (auth.anonymous) parts.unshift('anonymous');
  return cell(parts.join(', '));
}

function pairs(items: string[], option: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    if (at <= 0) throw usageError(`${option} expects name=value, got ${item}`);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

function parseBody(raw: string): unknown {
  const text = raw.startsWith('@') ? readText(raw.slice(1)) : raw;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw usageError(`--body is not valid JSON: ${(err as Error).message}`);
  }
}
