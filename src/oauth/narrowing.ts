import { ANONYMOUS, type Actor, type GrantNarrowing } from '../identity/actor.js';
import type { AnyOperation } from '../operations/operation.js';
import { AtriumError, forbidden } from '../shared/errors.js';
import { bearerChallenge } from './challenge.js';

/** Whether an operation only reads: a safe method, declared read-only (its MCP tool's `readOnlyHint`). */
export function onlyReads(op: AnyOperation): boolean {
  return op.method === 'GET' && op.readOnly === true;
}

/**
 * The narrowing that needs only the operation (docs/oauth.md, "Narrowing"):
 * a `read` grant may call only operations that read, and a grant narrowed to
 * Spaces writes nothing outside a Space (the Space itself is judged with the
 * request's parameters: `narrowToGrantSpaces`).
 */
export function refuseBeyondGrant(op: AnyOperation, grant: GrantNarrowing, resource: string): void {
  if (onlyReads(op)) return;
  if (grant.scope === 'read') {
    throw new AtriumError('grant_read_only', `this credential's grant is read-only: ${op.name} writes, which needs the "write" scope`, {
      'www-authenticate': bearerChallenge(resource, { insufficientScope: 'write' }),
    });
  }
  if (grant.spaces !== null && !namesSpace(op)) {
    throw forbidden('grant_space_excluded', `this credential's grant covers only some Spaces: ${op.name} writes outside any Space`);
  }
}

/** The Space a call addresses, when its path names one. */
export function namesSpace(op: AnyOperation): boolean {
  return op.path.includes('{slug}') || op.path.includes('{space}');
}

/**
 * A call addressed to one Space, made with a grant narrowed to other Spaces:
 * it reads only what is public there (it is answered as an anonymous caller
 * would be) and writes nothing.
 */
export function narrowToGrantSpaces(op: AnyOperation, actor: Actor, params: unknown): Actor {
  if (actor.kind !== 'member') return actor;
  const spaces = actor.credential.grant?.spaces;
  if (!spaces || !namesSpace(op)) return actor;
  const named = params as { slug?: unknown; space?: unknown } | undefined;
  const slug = named?.slug ?? named?.space;
  if (typeof slug !== 'string' || spaces.includes(slug)) return actor;
  if (onlyReads(op) && op.auth.anonymous) return ANONYMOUS;
  throw forbidden('grant_space_excluded', `this credential's grant does not cover Space ${slug}: outside its Spaces it reads only what is public and writes nothing`);
}
