import { GatewayError } from './errors.js';

export interface CallBounds {
  /** Calls one member may have in flight at once. */
  perMember: number;
  /** Calls one connection (of one Space) may have in flight at once. */
  perConnection: number;
  /** The sum of the answer limits (`maxResponseBytes`) of the calls in flight. */
  bufferBytes: number;
}

/**
 * What the gateway lets run at once. An answer is held whole until it is
 * complete (a longer one is refused, never truncated) and then written out
 * while the caller reads it, so each call in flight may hold up to its
 * destination's `maxResponseBytes`: reserving that much for each call, within
 * `bufferBytes`, bounds the gateway's memory however many callers ask. One
 * member or one connection may not take every place: beyond their bounds a
 * call is refused with 429, beyond the gateway's with 503, both before the
 * ticket is used up, so the caller can present it again.
 */
export class CallLimits {
  private readonly byMember = new Map<string, number>();
  private readonly byConnection = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly bounds: CallBounds) {}

  /** Takes a place for one call, or refuses; the returned function gives it back (once, however often it is called). */
  take(call: { member: string; space: string; connectionId: string; maxResponseBytes: number }): () => void {
    const connection = JSON.stringify([call.space, call.connectionId]);
    if ((this.byMember.get(call.member) ?? 0) >= this.bounds.perMember) {
      throw new GatewayError('too_many_calls', `this member already has ${this.bounds.perMember} calls in flight; retry when one is answered`);
    }
    if ((this.byConnection.get(connection) ?? 0) >= this.bounds.perConnection) {
      throw new GatewayError('too_many_calls', `connection ${call.connectionId} already has ${this.bounds.perConnection} calls in flight; retry when one is answered`);
    }
    if (this.bytes + call.maxResponseBytes > this.bounds.bufferBytes) {
      throw new GatewayError('gateway_busy', 'the gateway holds as many answers as it may at once; retry shortly');
    }
    bump(this.byMember, call.member, 1);
    bump(this.byConnection, connection, 1);
    this.bytes += call.maxResponseBytes;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      bump(this.byMember, call.member, -1);
      bump(this.byConnection, connection, -1);
      this.bytes -= call.maxResponseBytes;
    };
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}
