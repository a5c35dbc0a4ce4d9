import type { Actor, GrantNarrowing } from '../identity/actor.js';
import type { AnyOperation } from '../operations/operation.js';
import { AtriumError, forbidden } from '../shared/errors.js';
import { bearerChallenge } from './challenge.js';

/** Whether an operation only reads: a safe method, declared read-only (its MCP tool's `readOnlyHint`). */
export function onlyReads(op: AnyOperation): boolean {
  return op.method === 'GET' && op.readOnly === true;
}

/**
 * The narrowing that needs only the operation (docs/oauth.md, "Narrowing"):
 * no grant creates or approves a credential; a `read` grant may call only
 * operations that read; and a grant narrowed to Spaces neither writes outside
 * a Space nor reads across Spaces unless the operation declares how its
 * answer stays inside the grant (`beyondSpaces`). Deny by default: an
 * operation added later that reads beyond one Space is closed to a narrowed
 * grant until its declaration says otherwise. The Space a path names is
 * judged with the request's parameters (`narrowToGrantSpaces`).
 */
export function refuseBeyondGrant(op: AnyOperation, grant: GrantNarrowing, resource: string): void {
  if (op.createsCredential) {
    throw forbidden(
      'session_required',
      `${op.name} creates or approves a credential, which an OAuth token may never do (revoking a grant must leave nothing of it behind): sign in, or use your own member key`,
    );
  }
  refuseWriteToReadGrant(op, grant, resource);
  const reads = onlyReads(op);
  if (grant.spaces === null || namesSpace(op)) return;
  if (!reads) throw forbidden('grant_space_excluded', `this credential's grant covers only some Spaces: ${op.name} writes outside any Space`);
  if (op.beyondSpaces === undefined) {
    throw forbidden('grant_space_excluded', `this credential's grant covers only some Spaces: ${op.name} reads across Spaces`);
  }
}

/** A `read` grant calls only operations that read: 403 with the `insufficient_scope` challenge, so a client can ask its person for more. */
export function refuseWriteToReadGrant(op: AnyOperation, grant: GrantNarrowing, resource: string): void {
  if (grant.scope !== 'read' || onlyReads(op)) return;
  throw new AtriumError('grant_read_only', `this credential's grant is read-only: ${op.name} writes, which needs the "write" scope`, {
    'www-authenticate': bearerChallenge(resource, { insufficientScope: 'write' }),
  });
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
  if (!spaces) return actor;
  // A listing of public records (Spaces, members) answers a narrowed grant as it answers the public.
  if (!namesSpace(op)) return op.beyondSpaces === 'public' && onlyReads(op) ? PUBLIC_FOR_GRANT : actor;
  const named = params as { slug?: unknown; space?: unknown } | undefined;
  const slug = named?.slug ?? named?.space;
  if (typeof slug !== 'string' || spaces.includes(slug)) return actor;
  if (onlyReads(op) && op.auth.anonymous) return PUBLIC_FOR_GRANT;
  throw forbidden('grant_space_excluded', `this credential's grant does not cover Space ${slug}: outside its Spaces it reads only what is public and writes nothing`);
}

/**
 * The anonymous caller a narrowed grant is answered as outside its Spaces: a
 * distinct object, so the edge can tell it from a caller who presented nothing.
 */
const PUBLIC_FOR_GRANT: Actor = Object.freeze({ kind: 'anonymous' });

/**
 * Runs a call made as `actor`. Where a narrowed grant was answered as the
 * public and the public would get 401 (an invite-only Space, a listing that
 * needs a role), the grant gets 403 `grant_space_excluded` instead: its token
 * is valid, and a 401 would send an OAuth client to sign its person in again
 * for nothing.
 */
export function withinGrant<T>(actor: Actor, run: () => Promise<T>): Promise<T> {
  if (actor !== PUBLIC_FOR_GRANT) return run();
  return run().catch((err: unknown) => {
    if (err instanceof AtriumError && err.status === 401) {
      throw forbidden('grant_space_excluded', "this credential's grant does not cover this: outside its Spaces it reads only what is public");
    }
    throw err;
  });
}
