import type { OperationNode, RootOperationNode } from 'kysely';
import type { WriteWatcher } from '../storage/write-watch.js';

/**
 * The writes that can change what a member key resolves to: the same ones
 * the triggers of migration 0017 announce to every node. A member row
 * updated or deleted (status, operator, anything a resolution carries); a
 * key updated other than its `last_used_ts` hint, or deleted; an insert that
 * may update either on conflict. A plain insert only adds a key or member
 * that nothing can have kept yet, since unknown keys are never kept. OAuth
 * grants and tokens count alike (migration 0020): a grant updated other than
 * its `last_used_ts` hint, any token update (revocation, rotation), deletions.
 * Sessions alike (migration 0033): signing out updates one. And every write to
 * admissions and Owner/Host assignments (below).
 */
export function changesKeyResolutions(node: RootOperationNode): boolean {
  if (changesAccess(node)) return true;
  switch (node.kind) {
    case 'UpdateQueryNode': {
      const tables = tableNames(node.table);
      if (tables.has('members') || tables.has('oauth_tokens') || tables.has('sessions')) return true;
      const touched = (node.updates ?? []).some((update) => columnName(update.column) !== 'last_used_ts');
      return (tables.has('member_keys') || tables.has('oauth_grants')) && touched;
    }
    case 'DeleteQueryNode': {
      const tables = tableNames(node.from);
      return tables.has('members') || tables.has('member_keys') || tables.has('oauth_grants') || tables.has('oauth_tokens') || tables.has('sessions');
    }
    case 'InsertQueryNode': {
      if (!node.onConflict?.updates?.length) return false;
      const tables = tableNames(node.into);
      return tables.has('members') || tables.has('member_keys');
    }
    default:
      return false;
  }
}

/**
 * Any write to admissions or Owner/Host assignments: triggers move the member
 * row's access version with it (migration 0032), which a resolution carries,
 * inserts included (a new admission widens what the member reads).
 */
function changesAccess(node: RootOperationNode): boolean {
  const target = node.kind === 'UpdateQueryNode' ? node.table : node.kind === 'DeleteQueryNode' ? node.from : node.kind === 'InsertQueryNode' ? node.into : undefined;
  const tables = tableNames(target);
  return tables.has('space_memberships') || tables.has('role_assignments');
}

/**
 * Watches this node's own writes for the member-key cache. Announcements
 * reach every node too, but a few milliseconds late: a member suspended
 * through this node must be refused by this node's very next request, not
 * after the notification arrives (docs/identity.md, "Keeping key resolutions").
 */
export function keyResolutionWatcher(forget: () => void): WriteWatcher {
  return { matches: changesKeyResolutions, changed: forget };
}

function tableNames(node: OperationNode | undefined, into = new Set<string>()): Set<string> {
  if (!node) return into;
  const n = node as OperationNode & {
    table?: { identifier?: { name?: string } };
    node?: OperationNode;
    froms?: readonly OperationNode[];
    items?: readonly OperationNode[];
  };
  if (n.kind === 'TableNode' && typeof n.table?.identifier?.name === 'string') into.add(n.table.identifier.name);
  else if (n.kind === 'AliasNode') tableNames(n.node, into);
  else if (n.kind === 'FromNode') for (const from of n.froms ?? []) tableNames(from, into);
  else if (n.kind === 'ListNode') for (const item of n.items ?? []) tableNames(item, into);
  return into;
}

function columnName(node: OperationNode): string | undefined {
  const n = node as OperationNode & { column?: { name?: string } };
  return n.kind === 'ColumnNode' ? n.column?.name : undefined;
}
