import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import { ANONYMOUS, type Actor } from '../identity/actor.js';
import { resolveCredential, type PresentedCredential, type StewardAttempt } from '../identity/credentials.js';
import { SESSION_COOKIE } from '../identity/tokens.js';
import type { AnyOperation, CredentialScheme } from '../operations/operation.js';
import { AtriumError, forbidden, unauthenticated } from '../shared/errors.js';
import { resourceUrl } from '../oauth/challenge.js';
import { refuseBeyondGrant } from '../oauth/narrowing.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function presentedCredential(request: FastifyRequest): PresentedCredential {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthenticated('credential_malformed', 'malformed Authorization header: expected "Bearer <key>"');
    return { type: 'bearer', token: match[1]! };
  }
  const cookie = request.cookies?.[SESSION_COOKIE];
  if (cookie) return { type: 'cookie', token: cookie };
  return { type: 'none' };
}

/**
 * Establishes the Actor for one operation call and applies the declaration's
 * credential rules. Authority (roles, admission) is the services' business; the
 * edge only answers "who is this, and may they use this kind of credential here".
 */
export async function authenticate(request: FastifyRequest, op: AnyOperation, ctx: AppContext): Promise<Actor> {
  // A public operation's answer never depends on who asks, so whatever credential
  // comes along is not even read: it can be neither refused (401/403) nor needed.
  if (op.auth.schemes.length === 0) return ANONYMOUS;
  const presented = presentedCredential(request);
  if (presented.type === 'cookie' && !SAFE_METHODS.has(request.method)) checkSameOrigin(request, ctx.config.baseUrl);

  const resolved = await resolveCredential(ctx.db.kysely, presented, {
    stewardKey: ctx.config.stewardKey,
    now: ctx.clock.now(),
    keys: ctx.memberKeys,
    resource: resourceUrl(ctx.config.baseUrl, 'rest'),
  }).catch((err: unknown) => {
    // A browser keeps a cookie whose session was revoked elsewhere; on operations open
    // to anyone (sign-in above all) it must not lock the person out: treat it as absent.
    if (presented.type === 'cookie' && op.auth.anonymous && err instanceof AtriumError && err.status === 401) return ANONYMOUS;
    throw err;
  });
  return actorFor(op, resolved, ctx, 'rest');
}

/**
 * The declaration's credential rules applied to a credential already resolved:
 * shared by every REST route and every MCP tool call, so both refuse alike.
 */
export function actorFor(op: AnyOperation, resolved: Actor | StewardAttempt, ctx: AppContext, at: 'rest' | 'mcp'): Actor {
  const accepts = (scheme: CredentialScheme) => op.auth.schemes.includes(scheme);

  if (resolved.kind === 'steward_attempt') {
    if (!resolved.matches) {
      if (accepts('steward_key') && ctx.config.stewardKey !== undefined) throw forbidden('steward_key_invalid', 'wrong steward key');
      throw unauthenticated('key_invalid', 'unknown or malformed key');
    }
    if (!accepts('steward_key')) {
      if (op.auth.anonymous) return { kind: 'anonymous' };
      throw forbidden('steward_key_refused', 'the steward key cannot be used for this operation');
    }
    return { kind: 'steward' };
  }
  if (resolved.kind === 'anonymous') {
    if (!op.auth.anonymous) throw unauthenticated('credential_required', describeRequired(op));
    return resolved;
  }
  if (resolved.kind === 'member') {
    const scheme: CredentialScheme = resolved.credential.type === 'key' ? 'member_key' : 'session';
    if (!accepts(scheme)) {
      if (op.auth.anonymous) return { kind: 'anonymous' };
      throw scheme === 'member_key'
        ? forbidden('session_required', 'this operation needs a signed-in session; API keys are refused (sign in through the web app, or `atrium sign-in` in the CLI)')
        : forbidden('session_refused', 'this operation does not accept a session');
    }
    // protocol: Member status. A pending agent's key authenticates, but every action is refused.
    if (resolved.member.status === 'pending' && !op.auth.anonymous) {
      throw forbidden('member_pending', `member ${resolved.member.handle} is pending approval`);
    }
    const grant = resolved.credential.grant;
    if (grant) refuseBeyondGrant(op, grant, resourceUrl(ctx.config.baseUrl, at));
  }
  return resolved;
}

function describeRequired(op: AnyOperation): string {
  const names: Record<CredentialScheme, string> = {
    member_key: 'a member key',
    session: 'a sign-in session',
    steward_key: 'the steward key',
  };
  return `a credential is required: ${op.auth.schemes.map((s) => names[s]).join(' or ')}`;
}

/**
 * protocol: Credentials (CSRF). Cookie-authenticated unsafe requests must come from our own
 * origin. A missing Origin is refused too: browsers always send it on
 * cross-origin unsafe requests, so only non-browser clients omit it, and those
 * should use a bearer token instead of a cookie.
 */
function checkSameOrigin(request: FastifyRequest, baseUrl: string): void {
  const origin = request.headers.origin;
  if (origin === undefined || origin !== new URL(baseUrl).origin) {
    throw forbidden('origin_refused', 'cross-origin request refused: cookie-authenticated writes must come from this host');
  }
}
