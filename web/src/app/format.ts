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
