// Dates are shown in the reader's own locale and time zone (the browser's
// defaults), and always also carried as machine-readable ISO 8601 in <time>.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/**
 * An activation lives 15 minutes (src/activations/service.ts,
 * ACTIVATION_LIFETIME_MS). The API carries only `expires_ts`, so the moment
 * the client asked is derived from it.
 */
export const ACTIVATION_LIFETIME_MS = 15 * 60 * 1000;

export function requestedAt(expiresTs: string): string {
  return new Date(Date.parse(expiresTs) - ACTIVATION_LIFETIME_MS).toISOString();
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** How long ago (or how far ahead) a moment is, in the reader's language: "3 hours ago", "yesterday". */
export function formatRelative(iso: string, now: number = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((at - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.trunc(seconds / size), unit);
  }
  return relative.format(0, 'second');
}
