import { AtriumError } from '../shared/errors.js';
import type { Actor } from '../identity/actor.js';
import { callAnswerBytes, MAX_RESPONSE_BYTES_CEILING, RETRY_LATER_SECONDS } from '../shared/gateway-wire.js';
import { refuse } from './refusal.js';

/**
 * How many times over this process may hold one call's answer before it is
 * written out: the buffer the gateway's answer is read into, the text made of
 * it, the bytes that text is written out as, and one more for the answers that
 * are parsed whole (any form but the gateway's own) or framed as text for an
 * MCP client. The garbage collector frees none of them at once.
 */
export const ANSWER_COPIES = 4;

/** What one call may make this process hold, for a destination whose answers are at most `maxResponseBytes` long. */
export function answerHoldBytes(maxResponseBytes: number): number {
  return ANSWER_COPIES * callAnswerBytes(maxResponseBytes);
}

/** The least the byte budget may be: one call at the longest answer any destination may give, so every call can run. */
export const MIN_CALL_BUFFER_BYTES = answerHoldBytes(MAX_RESPONSE_BYTES_CEILING);
/** Without ATRIUM_CREDENTIAL_BUFFER_BYTES: two calls at that longest answer. */
export const DEFAULT_CALL_BUFFER_BYTES = 2 * MIN_CALL_BUFFER_BYTES;

export interface CredentialCallBounds {
  perMember: number;
  perConnection: number;
  /** What the calls in flight may hold at once, in bytes: the sum of their `answerHoldBytes`. */
  bufferBytes: number;
}

/** What the calls in flight hold now, and the most they have held at once since the process started. */
export interface HeldBytes {
  calls: number;
  bytes: number;
  peakBytes: number;
}

/** One call's place: `hold` counts its answer's bytes once the gateway has said how long it may be; `leave` gives everything back. */
export interface CallPlace {
  hold(maxResponseBytes: number): void;
  leave(): void;
}

/**
 * The credential calls this process has in flight. Each holds its provider's
 * answer (up to its destination's ceiling, several times over) while it
 * reads, checks and returns it, so the process bounds the bytes they may hold
 * together, whoever asks, and one member, or one connection shared by a
 * Space's members, may have only so many at once. Beyond a count a call is
 * refused with 429 `too_many_calls`, before anything is checked, reserved or
 * asked of the gateway; beyond the bytes with 503 `host_busy`, once the
 * gateway has issued the ticket and said how long its answer may be, but
 * before the ticket is used (the caller frees its run id and approval, so the
 * same call can be made again). Both carry `Retry-After`. The counts are this
 * process's own: each node of a host, and the gateway, bounds what it holds
 * itself.
 */
export class CredentialCallLimits {
  private readonly byMember = new Map<string, number>();
  private readonly byConnection = new Map<string, number>();
  private bytes = 0;
  private calls = 0;
  private peakBytes = 0;

  constructor(private readonly bounds: CredentialCallBounds) {}

  /** Takes a place for one call, or refuses; its `leave` gives it back (once, however often it is called). */
  take(member: string, space: string, connectionId: string): CallPlace {
    const connection = JSON.stringify([space, connectionId]);
    const retryAfter = { 'retry-after': String(RETRY_LATER_SECONDS.too_many_calls) };
    if ((this.byMember.get(member) ?? 0) >= this.bounds.perMember) {
      throw refuse('too_many_calls', `${member} already has ${this.bounds.perMember} external calls in flight; retry when one is answered`, retryAfter);
    }
    if ((this.byConnection.get(connection) ?? 0) >= this.bounds.perConnection) {
      throw refuse('too_many_calls', `connection ${connectionId} already has ${this.bounds.perConnection} calls in flight; retry when one is answered`, retryAfter);
    }
    // No room for even the shortest answer: refused before a ticket is asked for.
    if (this.bytes + answerHoldBytes(1) > this.bounds.bufferBytes) throw busy();
    bump(this.byMember, member, 1);
    bump(this.byConnection, connection, 1);
    this.calls += 1;
    let held = 0;
    let left = false;
    return {
      hold: (maxResponseBytes) => {
        if (left || held !== 0) throw new Error('a call holds its answer room once');
        const bytes = answerHoldBytes(maxResponseBytes);
        if (this.bytes + bytes > this.bounds.bufferBytes) throw busy();
        held = bytes;
        this.bytes += bytes;
        this.peakBytes = Math.max(this.peakBytes, this.bytes);
      },
      leave: () => {
        if (left) return;
        left = true;
        bump(this.byMember, member, -1);
        bump(this.byConnection, connection, -1);
        this.calls -= 1;
        this.bytes -= held;
      },
    };
  }

  held(): HeldBytes {
    return { calls: this.calls, bytes: this.bytes, peakBytes: this.peakBytes };
  }
}

function busy(): AtriumError {
  return new AtriumError('host_busy', 'host_busy: this host holds as many external answers as it may at once; retry shortly', {
    'retry-after': String(RETRY_LATER_SECONDS.gateway_busy),
  });
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
