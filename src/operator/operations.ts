import { defineOperation, MEMBER_CREDENTIALS } from '../operations/operation.js';
import { isHostWideOwner } from '../roles/authority.js';
import { forbidden } from '../shared/errors.js';
import { OperatorStatus } from './schemas.js';
import { operatorStatus } from './status.js';

export const getOperatorStatus = defineOperation({
  name: 'get_operator_status',
  who: 'host_owners',
  method: 'GET',
  path: '/v0/operator/status',
  tag: 'Operator',
  summary: 'What the host is doing: nodes, their recent readings, table sizes, errors, the janitor',
  description:
    'For a host-wide Owner, with a session or their own member key (403 `role_required` otherwise), so a script of theirs can watch ' +
    'it too. Every serving node samples itself every ten seconds; this answers the last half hour of every node’s samples, which ' +
    'nodes are running and which leads, the ten largest tables and indexes, error answers of the last hour by `Atrium-Error` code, ' +
    'and the janitor’s newest run (docs/operations.md, "The operator’s page").',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  success: { status: 200, description: 'The host now, and its last half hour.', schema: OperatorStatus },
  errors: [401, 403],
  readOnly: true,
  notAnMcpTool: 'a host-wide Owner’s view in the web app; agents never hold host-wide Owner powers',
  handler: async ({ actor, ctx }) => {
    // Reading how the host runs changes nothing, so unlike assigning roles it takes the Owner's key as well as their session.
    if (!(await isHostWideOwner(ctx.db.kysely, actor))) throw forbidden('role_required', 'a host-wide Owner role is required');
    return operatorStatus(ctx.db, ctx.clock.now());
  },
});

export const operatorOperations = [getOperatorStatus];
