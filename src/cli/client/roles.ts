import type { Command } from 'commander';
import { resolveTarget, send, type Body, type Query } from './api.js';
import { client, group, type CommonOptions } from './command-kit.js';
import { printJson, printTable, say, time } from './output.js';

export function registerRoles(program: Command): void {
  const roles = group(program, 'roles', 'owner, host and maintainer assignments (Owner session or steward key)');

  client(roles, 'list', 'list role assignments')
    .option('--member <handle>', 'only this member')
    .option('--space <slug>', 'only assignments scoped to this Space')
    .option('--status <status>', 'active (default), revoked or all')
    .action(async (opts: CommonOptions & { member?: string; space?: string; status?: string }) => {
      const query = { member: opts.member, space: opts.space, status: opts.status } as Query<'list_role_assignments'>;
      const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/role-assignments', { params: { query } }));
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
      const assignment = { member, role, ...(opts.space !== undefined ? { space: opts.space } : {}) } as Body<'assign_role'>;
      const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/role-assignments', { body: assignment }));
      if (opts.json) return printJson(body);
      say(`Assigned ${body.role} ${body.space ? `of ${body.space}` : '(host-wide)'} to ${body.member}: ${body.id}`);
    });

  client(roles, 'revoke <id>', 'revoke a role assignment').action(async (id: string, opts: CommonOptions) => {
    const { body } = await send(resolveTarget(opts.host), (api) => api.POST('/v0/role-assignments/{id}/revoke', { params: { path: { id } } }));
    if (opts.json) return printJson(body);
    say(`Revoked ${body.id}: ${body.member} is no longer ${body.role} ${body.space ? `of ${body.space}` : '(host-wide)'}.`);
  });
}
