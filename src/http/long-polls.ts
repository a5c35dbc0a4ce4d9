import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../identity/actor.js';
import type { HeldWait, WaitAllowance } from '../operations/waits.js';
import { clientKey } from './client-key.js';
import type { ConnectionShare } from './connection-share.js';

/**
 * How many long polls the host holds open, for whom (docs/http.md, "Sharing
 * the server fairly"). A held poll costs a connection for up to 30 seconds, so without a
 * budget of their own a few clients could hold every connection the server
 * has while costing it nothing. Counted per client address (behind a trusted
 * proxy, the forwarded one), per member whatever address they call from, and
 * in all, which keeps a reserve of connections long polls can never take. A
 * poll over any of them is not refused: it is answered at once, as an
 * ordinary poll, with `Retry-After`, so a well-behaved client slows down and
 * loses nothing.
 */
export interface LongPollLimits {
  total: number;
  perAddress: number;
  perMember: number;
}

/** Seconds an over-budget (or reclaimed) long poller is asked to wait before polling again. */
export const LONG_POLL_RETRY_AFTER_SECONDS = 5;

export type LongPollRefusal = 'total' | 'address' | 'member';

export class LongPollBudget {
  private held = 0;
  private readonly byAddress = new Map<string, number>();
  private readonly byMember = new Map<string, number>();
  /** Polls answered at once for being over a budget, by which one, since start. */
  readonly refused: Record<LongPollRefusal, number> = { total: 0, address: 0, member: 0 };

  constructor(private readonly limits: LongPollLimits) {}

  /** Long polls held now. */
  get count(): number {
    return this.held;
  }

  /** Takes one long poll for this client; the release function, or undefined when a budget is spent. */
  take(address: string, member: string | undefined): (() => void) | undefined {
    const refusal = this.refusal(address, member);
    if (refusal !== undefined) {
      this.refused[refusal] += 1;
      return undefined;
    }
    this.held += 1;
    bump(this.byAddress, address, 1);
    if (member !== undefined) bump(this.byMember, member, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= 1;
      bump(this.byAddress, address, -1);
      if (member !== undefined) bump(this.byMember, member, -1);
    };
  }

  private refusal(address: string, member: string | undefined): LongPollRefusal | undefined {
    if (this.held >= this.limits.total) return 'total';
    if ((this.byAddress.get(address) ?? 0) >= this.limits.perAddress) return 'address';
    if (member !== undefined && (this.byMember.get(member) ?? 0) >= this.limits.perMember) return 'member';
    return undefined;
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}

/** Whose budget a caller's long polls count against: a member by handle, the steward as one. */
function memberKey(actor: Actor): string | undefined {
  if (actor.kind === 'member') return actor.member.handle;
  if (actor.kind === 'steward') return '~steward';
  return undefined;
}

/**
 * What one HTTP request may hold while it waits. The hold ends, and the
 * handler answers with what it has, when the client goes away (so a waiter
 * gone is no longer counted or woken) or when the host takes the connection
 * back for another client (then the answer says `Connection: close`).
 */
export function waitAllowance(
  request: FastifyRequest,
  reply: FastifyReply,
  actor: Actor,
  budget: LongPollBudget,
  connections: ConnectionShare,
): WaitAllowance {
  return {
    retryAfterSeconds: LONG_POLL_RETRY_AFTER_SECONDS,
    hold(): HeldWait | undefined {
      const release = budget.take(clientKey(request.ip), memberKey(actor));
      if (release === undefined) return undefined;
      const abort = new AbortController();
      const response = reply.raw;
      const gone = () => {
        if (!response.writableEnded) abort.abort('gone');
      };
      response.once('close', gone);
      const withdraw = connections.offerLongPoll(request.raw.socket, () => {
        response.setHeader('connection', 'close');
        abort.abort('reclaimed');
      });
      return {
        signal: abort.signal,
        release() {
          release();
          withdraw();
          response.off('close', gone);
        },
      };
    },
  };
}
