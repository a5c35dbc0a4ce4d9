import type { Command } from 'commander';
import { resolveTarget, send, type Query, type Schemas } from './api.js';
import { client, group, positiveInteger, readText, type CommonOptions } from './command-kit.js';
import { usageError } from './errors.js';
import { printJson, printRecord, printTable, say, time } from './output.js';

type Space = Schemas['Space'];
type Membership = Schemas['SpaceMembership'];

export function registerSpaces(program: Command): void {
  const spaces = group(program, 'spaces', 'list, propose and govern Spaces');

  client(spaces, 'list', 'list Spaces (proposed and active unless --status says otherwise)')
    .option('--status <status>', 'proposed, active or archived (archived needs a host-wide Owner/Host or the steward key)')
    .action(async (opts: CommonOptions & { status?: string }) => {
      const status = opts.status as Query<'list_spaces'>['status'];
      const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces', { params: { query: { status } } }));
      if (opts.json) return printJson(body);
      printTable(
        ['SLUG', 'NAME', 'STATUS', 'JOIN', 'PROPOSED BY', 'CREATED'],
        body.spaces.map((s) => [s.slug, s.name, s.status, s.join_policy, s.created_by, time(s.created_ts)]),
        'No Spaces.',
      );
    });

  client(spaces, 'get <slug>', 'show one Space').action(async (slug: string, opts: CommonOptions) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{slug}', { params: { path: { slug } } }));
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
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces', {
          body: {
            slug,
            name,
            ...(opts.purpose !== undefined ? { purpose: opts.purpose } : {}),
            ...(charter !== undefined ? { charter } : {}),
            // The host judges the value: the CLI passes on what it was given.
            ...(opts.joinPolicy !== undefined ? { join_policy: opts.joinPolicy as Space['join_policy'] } : {}),
          },
        }),
      );
      if (opts.json) return printJson(body);
      say(`Proposed Space ${body.slug} ("${body.name}"). It becomes active when an Owner or Host approves it.`);
      // Proposing makes no one a member: say the next step at the moment it matters.
      say(`Proposing does not make you a member: once it is active, join it with \`atrium spaces join ${body.slug}\`.`);
    });

  const transitions = {
    approve: ['approve a proposed Space (host-wide Owner/Host or steward key)', '/v0/spaces/{slug}/approve'],
    archive: ['archive a proposed Space (host-wide Owner/Host or steward key)', '/v0/spaces/{slug}/archive'],
    restore: ['restore an archived Space to proposed (host-wide Owner/Host or steward key)', '/v0/spaces/{slug}/restore'],
  } as const;
  for (const [name, [description, path]] of Object.entries(transitions)) {
    const cmd = client(spaces, `${name} <slug>`, description);
    if (name === 'archive') cmd.option('--reason <text>', 'why (at most 500 characters; recorded in the event)');
    cmd.action(async (slug: string, opts: CommonOptions & { reason?: string }) => {
      const target = resolveTarget(opts.host);
      const { body } = await send(target, (api) =>
        path === '/v0/spaces/{slug}/archive'
          ? api.POST(path, { params: { path: { slug } }, body: opts.reason !== undefined ? { reason: opts.reason } : {} })
          : api.POST(path, { params: { path: { slug } } }),
      );
      if (opts.json) return printJson(body);
      say(`Space ${body.slug} is now ${body.status}.`);
      if (name === 'approve') {
        say(`Members join it with \`atrium spaces join ${body.slug}\`; its proposer, ${body.created_by}, is not a member until they do.`);
      }
    });
  }

  client(spaces, 'review-policy <slug> <policy>', 'set who may complete evidence-only tasks: independent_principal, distinct_member or self_attested')
    .requiredOption('--reason <text>', 'why (3-1000 characters; recorded in the event)')
    .action(async (slug: string, policy: string, opts: CommonOptions & { reason: string }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/review-policy', {
          params: { path: { slug } },
          body: { review_policy: policy as Space['review_policy'], reason: opts.reason },
        }),
      );
      if (opts.json) return printJson(body);
      say(`Space ${body.slug} now has review policy ${body.review_policy}.`);
    });

  client(spaces, 'join <slug>', 'join a Space (in a request Space: ask to join)').action(async (slug: string, opts: CommonOptions) => {
    const { status, body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/spaces/{slug}/join', { params: { path: { slug } } }));
    if (opts.json) return printJson(body);
    if (status === 202 || body.state === 'requested') say(`Asked to join ${body.space}: an Owner or Host of the Space must admit ${body.member}.`);
    else say(`${body.member} is ${body.state} in ${body.space}.`);
  });

  client(spaces, 'leave <slug>', 'leave a Space').action(async (slug: string, opts: CommonOptions) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/spaces/{slug}/leave', { params: { path: { slug } } }));
    if (opts.json) return printJson(body);
    say(`${body.member} left ${body.space}.`);
  });

  client(spaces, 'members <slug>', "list a Space's members (invitations, requests and removals only for its Owner/Host)")
    .option('--state <state>', 'admitted, invited, requested or removed')
    .option('--before <handle>', 'only handles after this one (to page on)')
    .option('--limit <n>', 'members per page (1-200, default 50)', positiveInteger)
    .action(async (slug: string, opts: CommonOptions & { state?: string; before?: string; limit?: number }) => {
      const query = { state: opts.state, before: opts.before, limit: opts.limit } as Query<'list_space_members'>;
      const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/spaces/{slug}/members', { params: { path: { slug }, query } }));
      if (opts.json) return printJson(body);
      const kind = (m: Schemas['SpaceMember']) => (m.member_type === 'agent' ? `agent of ${m.operator ?? '?'}` : 'person');
      printTable(['MEMBER', 'KIND', 'STATE', 'SINCE'], body.members.map((m) => [m.member, kind(m), m.state, time(m.updated_ts)]), `No members in ${slug}.`);
      if (body.members.length === (opts.limit ?? 50)) process.stderr.write(`More may exist: add --before ${body.members.at(-1)!.member}\n`);
    });

  client(spaces, 'invite <slug> <handle>', 'invite a member to an invite-only Space (Owner/Host)').action(async (slug: string, handle: string, opts: CommonOptions) => {
    const { body } = await send(resolveTarget(opts.host), (api) =>
      api.POST('/v0/spaces/{slug}/invitations', { params: { path: { slug } }, body: { member: handle } }),
    );
    if (opts.json) return printJson(body);
    say(`Invited ${body.member} to ${body.space}.`);
  });

  const admissions = {
    admit: ['admit a request to join (Owner/Host)', '/v0/spaces/{slug}/join-requests/{handle}/admit', (m: Membership) => `${m.member} is ${m.state} in ${m.space}.`],
    decline: [
      'decline a request to join (Owner/Host)',
      '/v0/spaces/{slug}/join-requests/{handle}/decline',
      (m: Membership) => `Declined ${m.member}'s request to join ${m.space}.`,
    ],
    remove: ['remove a member from a Space (Owner/Host)', '/v0/spaces/{slug}/members/{handle}/remove', (m: Membership) => `Removed ${m.member} from ${m.space}.`],
  } as const;
  for (const [name, [description, path, done]] of Object.entries(admissions)) {
    client(spaces, `${name} <slug> <handle>`, description).action(async (slug: string, handle: string, opts: CommonOptions) => {
      const { body } = await send(resolveTarget(opts.host), (api) => api.POST(path, { params: { path: { slug, handle } } }));
      if (opts.json) return printJson(body);
      say(done(body));
    });
  }
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
