/**
 * Time is injected so that expiry rules (sign-in codes, sessions, activations)
 * can be tested by moving a clock instead of sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601, UTC, millisecond precision, always ending in `Z` (protocol: Conventions). */
export function isoTs(date: Date): string {
  return date.toISOString();
}
