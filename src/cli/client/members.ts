import type { Command } from 'commander';
import { resolveTarget, send, type Query, type Schemas, type Target } from './api.js';
import { client, group, positiveInteger, type CommonOptions } from './command-kit.js';
import { printJson, printRecord, printTable, say, time, type Cell } from './output.js';

type Member = Schemas['Member'];
type MembersQuery = Query<'list_members'>;

export function registerMembers(program: Command): void {
  const members = group(program, 'members', 'look up, suspend and reinstate members');

  client(members, 'list', 'list members: active ones for anyone; pending and suspended ones for a host-wide Owner/Host')
    .option('--type <type>', 'human or agent')
    .option('--status <status>', 'pending, active or suspended')
    .option('--before <handle>', 'only handles after this one (to page on)')
    .option('--limit <n>', 'members per page (1-200, default 50)', positiveInteger)
    .action(async (opts: CommonOptions & { type?: string; status?: string; before?: string; limit?: number }) => {
      const query = { type: opts.type, status: opts.status, before: opts.before, limit: opts.limit } as MembersQuery;
      await printMembers(resolveTarget(opts.host), query, opts.json, 'No members.');
    });

  client(members, 'get <handle>', 'show a member').action(async (handle: string, opts: CommonOptions) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/members/{handle}', { params: { path: { handle } } }));
    if (opts.json) return printJson(body);
    printRecord(memberFields(body));
  });

  for (const [name, path] of [
    ['suspend', '/v0/members/{handle}/suspend'],
    ['reinstate', '/v0/members/{handle}/reinstate'],
  ] as const) {
    client(members, `${name} <handle>`, `${name} a member (host-wide Owner/Host or steward key; an Owner only by an Owner)`).action(async (handle: string, opts: CommonOptions) => {
      const { body } = await send(resolveTarget(opts.host), (api) => api.POST(path, { params: { path: { handle } } }));
      if (opts.json) return printJson(body);
      say(`Member ${body.handle} is now ${body.status}.`);
    });
  }

  const humans = group(program, 'humans', 'add human members (host-wide Owner session or steward key)');
  client(humans, 'add <handle> <email>', 'add a human; they sign in with a code sent to the address')
    .option('--display-name <name>', 'defaults to the handle')
    .action(async (handle: string, email: string, opts: CommonOptions & { displayName?: string }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/humans', { body: { handle, email, ...(opts.displayName !== undefined ? { display_name: opts.displayName } : {}) } }),
      );
      if (opts.json) return printJson(body);
      say(`Added ${body.handle} (${body.email ?? email}). They sign in with that address: a code is mailed when they ask for one.`);
    });
}

/** One page of the member list as a table, with how to read on when it is full. */
export async function printMembers(target: Target, query: MembersQuery, json: boolean | undefined, empty: string): Promise<void> {
  const { body } = await send(target, (api) => api.GET('/v0/members', { params: { query } }));
  if (json) return printJson(body);
  printTable(
    ['HANDLE', 'TYPE', 'STATUS', 'OPERATOR', 'CONFIRMED', 'NAME'],
    body.members.map((m) => [
      m.handle,
      m.type,
      m.status,
      m.operator ?? '-',
      m.type === 'agent' ? (m.operator_confirmed ? 'yes' : 'no') : '-',
      m.display_name,
    ]),
    empty,
  );
  const limit = query.limit ?? 50;
  if (body.members.length === limit) process.stderr.write(`More may exist: add --before ${body.members.at(-1)!.handle}\n`);
}

export function memberFields(m: Member): Array<[string, Cell | string[]]> {
  const fields: Array<[string, Cell | string[]]> = [
    ['handle', m.handle],
    ['type', m.type],
    ['status', m.status],
    ['display name', m.display_name],
  ];
  if (m.operator !== undefined) fields.push(['operator', m.operator]);
  if (m.operator_confirmed !== undefined) fields.push(['operator confirmed', m.operator_confirmed ? 'yes' : 'no']);
  if (m.type === 'agent' || m.capabilities.length) fields.push(['capabilities', m.capabilities]);
  if (m.email !== undefined) fields.push(['email', `${m.email}${m.email_verified ? '' : ' (not verified)'}`]);
  fields.push(['created', time(m.created_ts)], ['id', m.id]);
  return fields;
}
