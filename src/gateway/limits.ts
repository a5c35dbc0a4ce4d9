import { GatewayError } from './errors.js';

export interface CallBounds {
  /** Calls one member may have in flight at once. */
  perMember: number;
  /** Calls one connection (of one Space) may have in flight at once. */
  perConnection: number;
  /** What the calls in flight may hold at once, in bytes: the sum of their `callHoldBytes`. */
  bufferBytes: number;
}

/** Room for what the socket and the answer's stream hold of its JSON at once: a few of its 48 KiB pieces. */
const WRITE_ROOM = 256 * 1024;

/**
 * The most one call can make the gateway hold: an upstream that does not
 * declare its length is read as pieces that are then joined into one buffer,
 * so at that moment the answer is there twice; one of declared length is read
 * into its buffer once. The JSON written out is encoded a piece at a time.
 */
export function callHoldBytes(maxResponseBytes: number): number {
  return 2 * maxResponseBytes + WRITE_ROOM;
}

/** Without ATRIUM_GATEWAY_BUFFER_BYTES: room for this many calls at the largest destination's limit… */
export const DEFAULT_CALLS_HELD = 4;
/** …and never less than this, so destinations of small answers still serve many calls at once. */
export const DEFAULT_BUFFER_FLOOR = 256 * 1024 * 1024;

/** The default budget for these destination answer ceilings (`maxResponseBytes`). */
export function defaultBufferBytes(maxResponseBytes: readonly number[]): number {
  return Math.max(DEFAULT_BUFFER_FLOOR, DEFAULT_CALLS_HELD * callHoldBytes(Math.max(0, ...maxResponseBytes)));
}

/** What the calls in flight hold now, and the most they have held at once since the gateway started. */
export interface HeldBytes {
  calls: number;
  bytes: number;
  peakBytes: number;
}

/**
 * What the gateway lets run at once. An answer is held whole until it is
 * complete (a longer one is refused, never truncated) and then written out
 * while the caller reads it, so each call in flight may hold up to
 * `callHoldBytes` of its destination's `maxResponseBytes`: reserving that much
 * for each call, within `bufferBytes`, bounds the gateway's memory however
 * many callers ask. One member or one connection may not take every place:
 * beyond their bounds a call is refused with 429, beyond the gateway's with
 * 503, both before the ticket is used up, so the caller can present it again.
 */
export class CallLimits {
  private readonly byMember = new Map<string, number>();
  private readonly byConnection = new Map<string, number>();
  private bytes = 0;
  private calls = 0;
  private peakBytes = 0;

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
    const hold = callHoldBytes(call.maxResponseBytes);
    if (this.bytes + hold > this.bounds.bufferBytes) {
      throw new GatewayError('gateway_busy', 'the gateway holds as many answers as it may at once; retry shortly');
    }
    bump(this.byMember, call.member, 1);
    bump(this.byConnection, connection, 1);
    this.bytes += hold;
    this.calls += 1;
    this.peakBytes = Math.max(this.peakBytes, this.bytes);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      bump(this.byMember, call.member, -1);
      bump(this.byConnection, connection, -1);
      this.bytes -= hold;
      this.calls -= 1;
    };
  }

  held(): HeldBytes {
    return { calls: this.calls, bytes: this.bytes, peakBytes: this.peakBytes };
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}
