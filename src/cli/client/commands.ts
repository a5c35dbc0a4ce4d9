import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { client, positiveInteger } from './command-kit.js';
import { callOperation, operationsByName, pathParameters, resolveTarget, type CallInput, type Target } from './api.js';
import { readCredentials } from './credentials-file.js';
import { usageError } from './errors.js';
import { feedOptions, listEvents, type EventsOptions } from './events.js';
import { login, logout } from './login.js';
import { signIn, signOut } from './sign-in.js';
import { registerMessageCommands } from './messages.js';
import { cell, printJson, printRecord, printTable, say, time, type Cell } from './output.js';
import { registerTasks } from './tasks.js';
import { registerResources } from './resources.js';
import { registerPins } from './pins.js';
import { registerMcpConfig } from './mcp.js';
import { registerWebhookCommands } from './webhooks.js';
import { registerExternalCallCommands } from './external-calls.js';

interface CommonOptions {
  host?: string;
  json?: boolean;
}

interface Space {
  slug: string;
  name: string;
  purpose: string;
  charter: string;
  join_policy: string;
  review_policy: string;
  governance_mode: string;
  status: string;
  created_by: string;
  created_ts: string;
  updated_ts: string;
  pinned_resources: string[];
}

interface Member {
  id: string;
  handle: string;
  type: string;
  display_name: string;
  operator?: string;
  operator_confirmed?: boolean;
  capabilities: string[];
  status: string;
  created_ts: string;
  email?: string;
  email_verified?: boolean;
}

interface Membership {
  space: string;
  member: string;
  state: string;
  updated_ts: string | null;
}

interface SpaceMember extends Membership {
  member_type: 'human' | 'agent';
  operator: string | null;
}

interface RoleAssignment {
  id: string;
  member: string;
  role: string;
  space: string | null;
  status: string;
  created_by: string | null;
  created_ts: string;
}

interface ApiCredential {
  id: string;
  client_name: string;
  key_prefix: string;
  created_ts: string;
  last_used_ts: string | null;
  revoked_ts: string | null;
}

/**
 * The client half of the `atrium` command: every command here talks to a
 * host over the public HTTP API, exactly as any other client would.
 */
export function registerClientCommands(program: Command): void {
  // Usage errors exit 2 and API errors 1, so scripts can tell a typo from a refusal.
  program.exitOverride((err) => {
    if (err.code === 'commander.executeSubCommandAsync') return;
    throw err.exitCode === 0 ? err : new CommanderError(2, err.code, err.message);
  });

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
    .action(() => logout());

  program
    .command('sign-in')
    .description('start a sign-in session with a code mailed to you, for what an API key may not do (review policy, roles, credentials)')
    .option('--host <url>', 'the Atrium host (default: ATRIUM_URL, else http://localhost:8080)')
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
    const { body: me } = await callOperation<Member>(target, 'get_me');
    if (opts.json) return printJson(me);
    printRecord([...memberFields(me), ['host', target.host], ['credential', describeCredential(target)]]);
  });

  registerSpaces(program);
  registerAgents(program);
  registerMembers(program);
  registerHumans(program);
  registerRoles(program);
  registerCredentials(program);
  registerTasks(program);
  registerMessageCommands(program);
  registerResources(program);
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

/** A command that talks to a host: every one takes `--host` and `--json`. */

function group(program: Command, name: string, description: string): Command {
  return program.command(name).description(description);
}

function registerSpaces(program: Command): void {
  const spaces = group(program, 'spaces', 'list, propose and govern Spaces');

  client(spaces, 'list', 'list Spaces (proposed and active unless --status says otherwise)')
    .option('--status <status>', 'proposed, active or archived (archived needs a host-wide Owner/Host or the steward key)')
    .action(async (opts: CommonOptions & { status?: string }) => {
      const { body } = await callOperation<{ spaces: Space[] }>(resolveTarget(opts.host), 'list_spaces', {
        query: { status: opts.status },
      });
      if (opts.json) return printJson(body);
      printTable(
        ['SLUG', 'NAME', 'STATUS', 'JOIN', 'PROPOSED BY', 'CREATED'],
        body.spaces.map((s) => [s.slug, s.name, s.status, s.join_policy, s.created_by, time(s.created_ts)]),
        'No Spaces.',
      );
    });

  client(spaces, 'get <slug>', 'show one Space').action(async (slug: string, opts: CommonOptions) => {
    const { body } = await callOperation<Space>(resolveTarget(opts.host), 'get_space', { params: { slug } });
    if (opts.json) return printJson(body);
    printSpace(body);
  });

  client(spaces, 'propose <slug> <name>', 'propose a new Space (an Owner/Host then approves it)')
    .option('--purpose <text>', 'one line, at most 280 characters')
    .option('--charter <markdown>', 'the charter, at most 10000 characters')
    .option('--charter-file <path>', 'read the charter from a file')
    .option('--join-policy <policy>', 'open (default), request or invite')
    .action(async (slug: string, name: string, opts: CommonOptions & { purpose?: string; charter?: string; charterFile?: string; joinPolicy?: string }) => {
      if (opts.charter !== undefined && opts.charterFile !== undefined) throw usageError('use either --charter or --charter-file, not both');
      const charter = opts.charterFile !== undefined ? readText(opts.charterFile) : opts.charter;
      const { body } = await callOperation<Space>(resolveTarget(opts.host), 'propose_space', {
        body: {
          slug,
          name,
          ...(opts.purpose !== undefined ? { purpose: opts.purpose } : {}),
          ...(charter !== undefined ? { charter } : {}),
          ...(opts.joinPolicy !== undefined ? { join_policy: opts.joinPolicy } : {}),
        },
      });
      if (opts.json) return printJson(body);
      say(`Proposed Space ${body.slug} ("${body.name}"). It becomes active when an Owner or Host approves it.`);
      // Proposing makes no one a member: say the next step at the moment it matters.
      say(`Proposing does not make you a member: once it is active, join it with \`atrium spaces join ${body.slug}\`.`);
    });

  const transition = (name: string, operation: string, description: string, withReason: boolean) => {
    const cmd = client(spaces, `${name} <slug>`, description);
    if (withReason) cmd.option('--reason <text>', 'why (at most 500 characters; recorded in the event)');
    cmd.action(async (slug: string, opts: CommonOptions & { reason?: string }) => {
      const { body } = await callOperation<Space>(resolveTarget(opts.host), operation, {
        params: { slug },
        ...(withReason ? { body: opts.reason !== undefined ? { reason: opts.reason } : {} } : {}),
      });
      if (opts.json) return printJson(body);
      say(`Space ${body.slug} is now ${body.status}.`);
      if (name === 'approve') {
        say(`Members join it with \`atrium spaces join ${body.slug}\`; its proposer, ${body.created_by}, is not a member until they do.`);
      }
    });
  };
  transition('approve', 'approve_space', 'approve a proposed Space (host-wide Owner/Host or steward key)', false);
  transition('archive', 'archive_space', 'archive a proposed Space (host-wide Owner/Host or steward key)', true);
  transition('restore', 'restore_space', 'restore an archived Space to proposed (host-wide Owner/Host or steward key)', false);

  client(spaces, 'review-policy <slug> <policy>', 'set who may complete evidence-only tasks: independent_principal, distinct_member or self_attested')
    .requiredOption('--reason <text>', 'why (3-1000 characters; recorded in the event)')
    .action(async (slug: string, policy: string, opts: CommonOptions & { reason: string }) => {
      const { body } = await callOperation<Space>(resolveTarget(opts.host), 'change_review_policy', {
        params: { slug },
        body: { review_policy: policy, reason: opts.reason },
      });
      if (opts.json) return printJson(body);
      say(`Space ${body.slug} now has review policy ${body.review_policy}.`);
    });

  client(spaces, 'join <slug>', 'join a Space (in a request Space: ask to join)').action(async (slug: string, opts: CommonOptions) => {
    const { status, body } = await callOperation<Membership>(resolveTarget(opts.host), 'join_space', { params: { slug } });
    if (opts.json) return printJson(body);
    if (status === 202 || body.state === 'requested') say(`Asked to join ${body.space}: an Owner or Host of the Space must admit ${body.member}.`);
    else say(`${body.member} is ${body.state} in ${body.space}.`);
  });

  client(spaces, 'leave <slug>', 'leave a Space').action(async (slug: string, opts: CommonOptions) => {
    const { body } = await callOperation<Membership>(resolveTarget(opts.host), 'leave_space', { params: { slug } });
    if (opts.json) return printJson(body);
    say(`${body.member} left ${body.space}.`);
  });

  client(spaces, 'members <slug>', "list a Space's members (invitations and requests only for its Owner/Host)").action(
    async (slug: string, opts: CommonOptions) => {
      const { body } = await callOperation<{ members: SpaceMember[] }>(resolveTarget(opts.host), 'list_space_members', { params: { slug } });
      if (opts.json) return printJson(body);
      const kind = (m: SpaceMember) => (m.member_type === 'agent' ? `agent of ${m.operator ?? '?'}` : 'person');
      printTable(['MEMBER', 'KIND', 'STATE', 'SINCE'], body.members.map((m) => [m.member, kind(m), m.state, time(m.updated_ts)]), `No members in ${slug}.`);
    },
  );

  const admission = (name: string, operation: string, description: string, done: (m: Membership) => string) => {
    client(spaces, `${name} <slug> <handle>`, description).action(async (slug: string, handle: string, opts: CommonOptions) => {
      const input: CallInput = operation === 'invite_member' ? { params: { slug }, body: { member: handle } } : { params: { slug, handle } };
      const { body } = await callOperation<Membership>(resolveTarget(opts.host), operation, input);
      if (opts.json) return printJson(body);
      say(done(body));
    });
  };
  admission('invite', 'invite_member', 'invite a member to an invite-only Space (Owner/Host)', (m) => `Invited ${m.member} to ${m.space}.`);
  admission('admit', 'admit_join_request', 'admit a request to join (Owner/Host)', (m) => `${m.member} is ${m.state} in ${m.space}.`);
  admission('decline', 'decline_join_request', 'decline a request to join (Owner/Host)', (m) => `Declined ${m.member}'s request to join ${m.space}.`);
  admission('remove', 'remove_space_member', 'remove a member from a Space (Owner/Host)', (m) => `Removed ${m.member} from ${m.space}.`);
}

function registerAgents(program: Command): void {
  const agents = group(program, 'agents', 'register, confirm and approve agents');

  client(agents, 'register <handle>', 'register an agent; prints its key, once')
    .requiredOption('--operator <handle>', 'the accountable human member')
    .option('--display-name <name>', 'defaults to the handle')
    .option('--capability <label>', 'a capability label (repeat for several)', collect, [] as string[])
    .action(async (handle: string, opts: CommonOptions & { operator: string; displayName?: string; capability: string[] }) => {
      const { body } = await callOperation<{ member: Member; key: string; note: string }>(resolveTarget(opts.host), 'register_agent', {
        body: {
          handle,
          operator: opts.operator,
          ...(opts.displayName !== undefined ? { display_name: opts.displayName } : {}),
          ...(opts.capability.length ? { capabilities: opts.capability } : {}),
        },
      });
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
      const operator = opts.mine ? (await callOperation<Member>(target, 'get_me')).body.handle : opts.operator;
      await printMembers(target, { type: 'agent', status: opts.status, operator, before: opts.before, limit: opts.limit }, opts.json, 'No agents.');
    });

  client(agents, 'confirm <handle>', "vouch for an agent that names you as its operator (or with the steward key)").action(
    async (handle: string, opts: CommonOptions) => {
      const { body } = await callOperation<Member>(resolveTarget(opts.host), 'confirm_agent', { params: { handle } });
      if (opts.json) return printJson(body);
      say(`Agent ${body.handle} is confirmed: ${body.operator ?? 'its operator'} answers for it. It is ${body.status}.`);
    },
  );

  client(agents, 'approve <handle>', 'approve a pending agent its operator has confirmed (host-wide Owner/Host or steward key)').action(async (handle: string, opts: CommonOptions) => {
    const { body } = await callOperation<Member>(resolveTarget(opts.host), 'approve_agent', { params: { handle } });
    if (opts.json) return printJson(body);
    say(`Agent ${body.handle} is now ${body.status}.`);
  });
}

function registerMembers(program: Command): void {
  const members = group(program, 'members', 'look up, suspend and reinstate members');

  client(members, 'list', 'list members: active ones for anyone; pending and suspended ones for a host-wide Owner/Host')
    .option('--type <type>', 'human or agent')
    .option('--status <status>', 'pending, active or suspended')
    .option('--before <handle>', 'only handles after this one (to page on)')
    .option('--limit <n>', 'members per page (1-200, default 50)', positiveInteger)
    .action(async (opts: CommonOptions & { type?: string; status?: string; before?: string; limit?: number }) => {
      await printMembers(resolveTarget(opts.host), { type: opts.type, status: opts.status, before: opts.before, limit: opts.limit }, opts.json, 'No members.');
    });

  client(members, 'get <handle>', 'show a member').action(async (handle: string, opts: CommonOptions) => {
    const { body } = await callOperation<Member>(resolveTarget(opts.host), 'get_member', { params: { handle } });
    if (opts.json) return printJson(body);
    printRecord(memberFields(body));
  });

  for (const [name, operation] of [
    ['suspend', 'suspend_member'],
    ['reinstate', 'reinstate_member'],
  ] as const) {
    client(members, `${name} <handle>`, `${name} a member (host-wide Owner/Host or steward key; an Owner only by an Owner)`).action(async (handle: string, opts: CommonOptions) => {
      const { body } = await callOperation<Member>(resolveTarget(opts.host), operation, { params: { handle } });
      if (opts.json) return printJson(body);
      say(`Member ${body.handle} is now ${body.status}.`);
    });
  }
}

async function printMembers(target: Target, query: Record<string, string | number | undefined>, json: boolean | undefined, empty: string): Promise<void> {
  const { body } = await callOperation<{ members: Member[] }>(target, 'list_members', { query });
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
  const limit = typeof query.limit === 'number' ? query.limit : 50;
  if (body.members.length === limit) process.stderr.write(`More may exist: add --before ${body.members.at(-1)!.handle}\n`);
}

function registerHumans(program: Command): void {
  const humans = group(program, 'humans', 'add human members (host-wide Owner session or steward key)');
  client(humans, 'add <handle> <email>', 'add a human; they sign in with a code sent to the address')
    .option('--display-name <name>', 'defaults to the handle')
    .action(async (handle: string, email: string, opts: CommonOptions & { displayName?: string }) => {
      const { body } = await callOperation<Member>(resolveTarget(opts.host), 'create_human', {
        body: { handle, email, ...(opts.displayName !== undefined ? { display_name: opts.displayName } : {}) },
      });
      if (opts.json) return printJson(body);
      say(`Added ${body.handle} (${body.email ?? email}). They sign in with that address: a code is mailed when they ask for one.`);
    });
}

function registerRoles(program: Command): void {
  const roles = group(program, 'roles', 'owner, host and maintainer assignments (Owner session or steward key)');

  client(roles, 'list', 'list role assignments')
    .option('--member <handle>', 'only this member')
    .option('--space <slug>', 'only assignments scoped to this Space')
    .option('--status <status>', 'active (default), revoked or all')
    .action(async (opts: CommonOptions & { member?: string; space?: string; status?: string }) => {
      const { body } = await callOperation<{ role_assignments: RoleAssignment[] }>(resolveTarget(opts.host), 'list_role_assignments', {
        query: { member: opts.member, space: opts.space, status: opts.status },
      });
      if (opts.json) return printJson(body);
      printTable(
        ['ID', 'MEMBER', 'ROLE', 'SPACE', 'STATUS', 'ASSIGNED BY', 'CREATED'],
        body.role_assignments.map((a) => [a.id, a.member, a.role, a.space ?? '(host-wide)', a.status, a.created_by, time(a.created_ts)]),
        'No role assignments.',
      );
    });

  client(roles, 'assign <member> <role>', 'assign owner, host or maintainer')
    .option('--space <slug>', 'scope the role to one Space (maintainer always needs one)')
    .action(async (member: string, role: string, opts: CommonOptions & { space?: string }) => {
      const { body } = await callOperation<RoleAssignment>(resolveTarget(opts.host), 'assign_role', {
        body: { member, role, ...(opts.space !== undefined ? { space: opts.space } : {}) },
      });
      if (opts.json) return printJson(body);
      say(`Assigned ${body.role} ${body.space ? `of ${body.space}` : '(host-wide)'} to ${body.member}: ${body.id}`);
    });

  client(roles, 'revoke <id>', 'revoke a role assignment').action(async (id: string, opts: CommonOptions) => {
    const { body } = await callOperation<RoleAssignment>(resolveTarget(opts.host), 'revoke_role_assignment', { params: { id } });
    if (opts.json) return printJson(body);
    say(`Revoked ${body.id}: ${body.member} is no longer ${body.role} ${body.space ? `of ${body.space}` : '(host-wide)'}.`);
  });
}

function registerCredentials(program: Command): void {
  const credentials = group(program, 'credentials', 'API keys minted for your clients (needs a sign-in session)');

  client(credentials, 'list', 'list your API credentials').action(async (opts: CommonOptions) => {
    const { body } = await callOperation<{ credentials: ApiCredential[] }>(resolveTarget(opts.host), 'list_credentials');
    if (opts.json) return printJson(body);
    printTable(
      ['ID', 'CLIENT', 'KEY', 'CREATED', 'LAST USED', 'REVOKED'],
      body.credentials.map((c) => [c.id, c.client_name, `${c.key_prefix}…`, time(c.created_ts), time(c.last_used_ts), time(c.revoked_ts)]),
      'No API credentials.',
    );
  });

  client(credentials, 'revoke <id>', 'revoke one of your API credentials; it stops working at once').action(async (id: string, opts: CommonOptions) => {
    const { body } = await callOperation<ApiCredential>(resolveTarget(opts.host), 'revoke_credential', { params: { id } });
    if (opts.json) return printJson(body);
    say(`Revoked ${body.id} (${body.client_name}).`);
    const stored = storedQuietly();
    if (stored?.key.startsWith(body.key_prefix)) say('That was the key stored by "atrium login"; run "atrium logout" to forget it.');
  });
}

function registerApi(program: Command): void {
  client(program, 'api [operation]', 'call any API operation by name and print its JSON; without a name, list the operations')
    .option('--param <name=value>', 'a path parameter (repeatable)', collect, [] as string[])
    .option('--query <name=value>', 'a query parameter (repeatable)', collect, [] as string[])
    .option('--body <json>', 'the JSON request body; @file reads a file, @- reads stdin')
    .action(async (name: string | undefined, opts: CommonOptions & { param: string[]; query: string[]; body?: string }) => {
      const ops = operationsByName();
      if (name === undefined) {
        const rows: Cell[][] = [...ops.values()].map((op) => [op.name, op.method, op.path, describeAuth(op.auth)]);
        return printTable(['OPERATION', 'METHOD', 'PATH', 'CREDENTIAL'], rows, 'No operations.');
      }
      const op = ops.get(name);
      if (!op) throw usageError(`no operation named ${name}; "atrium api" lists them`);
      const params = pairs(opts.param, '--param');
      const expected = pathParameters(op);
      for (const key of Object.keys(params)) {
        if (!expected.includes(key)) throw usageError(`${name} has no path parameter ${key} (it takes: ${expected.join(', ') || 'none'})`);
      }
      const missing = expected.filter((p) => params[p] === undefined);
      if (missing.length) throw usageError(`${name} needs ${missing.map((p) => `--param ${p}=…`).join(' ')}`);
      const { body } = await callOperation(resolveTarget(opts.host), name, {
        params,
        query: pairs(opts.query, '--query'),
        ...(opts.body !== undefined ? { body: parseBody(opts.body) } : {}),
      });
      if (body !== undefined) printJson(body);
    });
}

function printSpace(s: Space): void {
  printRecord([
    ['slug', s.slug],
    ['name', s.name],
    ['status', s.status],
    ['purpose', s.purpose],
    ['join policy', s.join_policy],
    ['review policy', s.review_policy],
    ['governance', s.governance_mode],
    ['proposed by', s.created_by],
    ['created', time(s.created_ts)],
    ['updated', time(s.updated_ts)],
    ['pinned', s.pinned_resources],
    ['charter', s.charter],
  ]);
}

function memberFields(m: Member): Array<[string, Cell | string[]]> {
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

function describeCredential(target: Target): string {
  if (target.tokenSource === 'ATRIUM_TOKEN') {
    const token = target.token ?? '';
    const kind = token.startsWith('st_atrium_') ? 'session token' : token.startsWith('sk_atrium_') ? 'API key' : 'token';
    return `${kind} from ATRIUM_TOKEN`;
  }
  return target.tokenSource === 'stored' ? 'API key stored by "atrium login"' : 'none';
}

function describeAuth(auth: { anonymous: boolean; schemes: string[] }): string {
  const names: Record<string, string> = { member_key: 'key', session: 'session', steward_key: 'steward' };
  const parts = auth.schemes.map((s) => names[s] ?? s);
  if (auth.anonymous) parts.unshift('anonymous');
  return cell(parts.join(', '));
}

function storedQuietly() {
  try {
    return readCredentials();
  } catch {
    return undefined;
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
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

function readText(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw usageError(`cannot read ${path === '-' ? 'stdin' : path}: ${(err as Error).message}`);
  }
}

function parseBody(raw: string): unknown {
  const text = raw.startsWith('@') ? readText(raw.slice(1)) : raw;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw usageError(`--body is not valid JSON: ${(err as Error).message}`);
  }
}
