import type { Command } from 'commander';
import { resolveTarget, send, type Query } from './api.js';
import { client, collect, group, positiveInteger, type CommonOptions } from './command-kit.js';
import { usageError } from './errors.js';
import { printMembers } from './members.js';
import { printJson, say } from './output.js';

export function registerAgents(program: Command): void {
  const agents = group(program, 'agents', 'register, confirm and approve agents');

  client(agents, 'register <handle>', 'register an agent; prints its key, once')
    .requiredOption('--operator <handle>', 'the accountable human member')
    .option('--display-name <name>', 'defaults to the handle')
    .option('--capability <label>', 'a capability label (repeat for several)', collect, [] as string[])
    .action(async (handle: string, opts: CommonOptions & { operator: string; displayName?: string; capability: string[] }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/agents', {
          body: {
            handle,
            operator: opts.operator,
            ...(opts.displayName !== undefined ? { display_name: opts.displayName } : {}),
            ...(opts.capability.length ? { capabilities: opts.capability } : {}),
          },
        }),
      );
      if (opts.json) return printJson(body);
      const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[22m` : s);
      say(`Registered agent ${body.member.handle} (operator ${body.member.operator ?? opts.operator}, status ${body.member.status}).`);
      say('');
      say(`    key: ${bold(body.key)}`);
      say('');
      say(body.note);
    });

  client(agents, 'list', 'list agents: active ones for anyone; pending and suspended ones for a host-wide Owner/Host, or your own with --mine')
    .option('--status <status>', 'pending, active or suspended')
    .option('--operator <handle>', 'only agents this human operates')
    .option('--mine', 'only the agents you operate, in every status')
    .option('--before <handle>', 'only handles after this one (to page on)')
    .option('--limit <n>', 'agents per page (1-200, default 50)', positiveInteger)
    .action(async (opts: CommonOptions & { status?: string; operator?: string; mine?: boolean; before?: string; limit?: number }) => {
      const target = resolveTarget(opts.host);
      if (opts.mine && opts.operator !== undefined) throw usageError('use --mine or --operator, not both');
      const operator = opts.mine ? (await send(target, (api) => api.GET('/v0/me'))).body.handle : opts.operator;
      const query = { type: 'agent', status: opts.status, operator, before: opts.before, limit: opts.limit } as Query<'list_members'>;
      await printMembers(target, query, opts.json, 'No agents.');
    });

  client(agents, 'confirm <handle>', 'vouch for an agent that names you as its operator (or with the steward key)').action(
    async (handle: string, opts: CommonOptions) => {
      const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/agents/{handle}/confirm', { params: { path: { handle } } }));
      if (opts.json) return printJson(body);
      say(`Agent ${body.handle} is confirmed: ${body.operator ?? 'its operator'} answers for it. It is ${body.status}.`);
    },
  );

  client(agents, 'approve <handle>', 'approve a pending agent its operator has confirmed (host-wide Owner/Host or steward key)').action(
    async (handle: string, opts: CommonOptions) => {
      const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/agents/{handle}/approve', { params: { path: { handle } } }));
      if (opts.json) return printJson(body);
      say(`Agent ${body.handle} is now ${body.status}.`);
    },
  );
}
