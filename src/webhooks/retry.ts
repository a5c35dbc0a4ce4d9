/** How far each scheduled wait may stray, either way: receivers that failed together do not all come back at once. */
export const JITTER = 0.2;

/**
 * The wait before the next attempt (docs/webhooks.md, "Retries"), in ms.
 * `made` counts the attempts of the current run so far (1 after the first);
 * the wait is the run's `made`-th schedule entry with ±20% jitter. A
 * receiver's `Retry-After` (seconds or an HTTP date) may lengthen it, but
 * never past the entry after that one (the next step), so a receiver cannot
 * park a delivery for ever.
 */
export function nextAttemptDelayMs(schedule: readonly number[], made: number, retryAfter: string | undefined, now: Date, random: () => number = Math.random): number {
  const step = schedule[made - 1] ?? schedule.at(-1) ?? 0;
  const jittered = step * 1000 * (1 - JITTER + 2 * JITTER * random());
  const asked = retryAfterMs(retryAfter, now);
  if (asked === undefined || asked <= jittered) return Math.round(jittered);
  const cap = (schedule[made] ?? step) * 1000;
  return Math.round(Math.max(jittered, Math.min(asked, cap)));
}

/** `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date is always in GMT; Date.parse alone would also take "-5" or "2026" as dates.
  if (!/GMT$/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now.getTime());
}
