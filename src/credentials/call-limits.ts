import type { Actor } from '../identity/actor.js';
import { RETRY_LATER_SECONDS } from '../shared/gateway-wire.js';
import { refuse } from './refusal.js';

/**
 * The credential calls this process has in flight. Each holds its provider's
 * answer (up to the gateway's answer ceiling) while it reads, checks and
 * returns it, so one member, or one connection shared by a Space's members,
 * may have only so many at once: beyond that a call is refused with 429
 * `too_many_calls` and `Retry-After` before anything is checked, reserved or
 * asked of the gateway, so it uses nothing up. The counts are this process's
 * own: each node of a host, and the gateway, bounds what it holds itself.
 */
export class CredentialCallLimits {
  private readonly byMember = new Map<string, number>();
  private readonly byConnection = new Map<string, number>();

  constructor(private readonly bounds: { perMember: number; perConnection: number }) {}

  /** Takes a place for one call, or refuses; the returned function gives it back (once, however often it is called). */
  take(member: string, space: string, connectionId: string): () => void {
    const connection = JSON.stringify([space, connectionId]);
    const retryAfter = { 'retry-after': String(RETRY_LATER_SECONDS.too_many_calls) };
    if ((this.byMember.get(member) ?? 0) >= this.bounds.perMember) {
      throw refuse('too_many_calls', `${member} already has ${this.bounds.perMember} external calls in flight; retry when one is answered`, retryAfter);
    }
    if ((this.byConnection.get(connection) ?? 0) >= this.bounds.perConnection) {
      throw refuse('too_many_calls', `connection ${connectionId} already has ${this.bounds.perConnection} calls in flight; retry when one is answered`, retryAfter);
    }
    bump(this.byMember, member, 1);
    bump(this.byConnection, connection, 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      bump(this.byMember, member, -1);
      bump(this.byConnection, connection, -1);
    };
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}

/** Who a call's place is counted for: the member (only members may call). */
export function callerKey(actor: Actor): string {
  return actor.kind === 'member' ? actor.member.handle : actor.kind;
}
