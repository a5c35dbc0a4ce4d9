import { requireActiveHuman } from '../roles/authority.js';
import { forbidden } from '../shared/errors.js';
import type { Actor, MemberActor } from './actor.js';

/**
 * Account operations (sign-out, the credentials page) deliberately refuse API
 * keys (protocol: Operations that need a signed-in session): a leaked key must not be
 * able to list or revoke its siblings.
 */
export function requireSession(actor: Actor): MemberActor {
  const member = requireActiveHuman(actor);
  if (member.credential.type !== 'session') throw forbidden('session_required', 'this operation needs a signed-in session; API keys are refused (sign in through the web app, or `atrium sign-in` in the CLI)');
  return member;
}
