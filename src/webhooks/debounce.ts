/**
 * How long a wake may wait to gather more events, in milliseconds. A leaf
 * module: the CLI checks its options against these without loading schemas.
 */
export const MIN_DEBOUNCE_MS = 0;
export const MAX_DEBOUNCE_MS = 60_000;
export const DEFAULT_DEBOUNCE_MS = 1000;
