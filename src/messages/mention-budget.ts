/** A parse always gets at least this long, however long the body waited, so a plain body is never called too complex. */
export const MIN_PARSE_MS = 100;

/** When a body arrived, and the host's start-up stall total then: what accrues after it is not charged. */
export interface Arrival {
  arrivedMs: number;
  stalledAtArrival: number;
}

/**
 * Each body's one time budget (mention-parser.ts), counted from its arrival:
 * waiting behind other bodies spends it. Time the host spends starting
 * workers (while none is ready, waiting is the host's doing) is not charged
 * to anyone.
 */
export class ParseBudgets {
  private stalledTotal = 0;
  private stalledSince: number | undefined;

  constructor(
    readonly timeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Call whenever a worker becomes ready or goes: a stall runs while none is ready. */
  noteReadiness(anyReady: boolean): void {
    if (!anyReady && this.stalledSince === undefined) this.stalledSince = this.now();
    if (anyReady && this.stalledSince !== undefined) {
      this.stalledTotal += this.now() - this.stalledSince;
      this.stalledSince = undefined;
    }
  }

  arrival(): Arrival {
    return { arrivedMs: this.now(), stalledAtArrival: this.stalled() };
  }

  /** Budget spent so far: time since arrival, less the start-up stalls since then. */
  spent(arrival: Arrival): number {
    return this.now() - arrival.arrivedMs - (this.stalled() - arrival.stalledAtArrival);
  }

  /** Budget left for a body still waiting. */
  left(arrival: Arrival): number {
    return this.timeoutMs - this.spent(arrival);
  }

  /** How long the parse of a body taken now may run. */
  forParse(arrival: Arrival): number {
    return Math.max(MIN_PARSE_MS, this.left(arrival));
  }

  private stalled(): number {
    return this.stalledTotal + (this.stalledSince === undefined ? 0 : this.now() - this.stalledSince);
  }
}
