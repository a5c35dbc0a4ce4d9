import { conflict, invalid } from '../shared/errors.js';
import type { SpaceRecord } from '../spaces/records.js';

/** protocol: Space status. Content writes (messages, channels, tasks …) need an active Space. */
export function requireActiveSpace(space: SpaceRecord): void {
  if (space.status !== 'active') throw conflict('space_not_active', `Space ${space.slug} is ${space.status}: content can be added only to an active Space`);
}

/**
 * A message body must not be only white space (there would be nothing to
 * read). Storability (no NUL, no lone surrogate) is checked at the edge for
 * every request (src/content/text.ts).
 */
export function checkBody(body: string): void {
  if (body.trim() === '') throw invalid('validation_failed', 'body must not be blank');
}
