import { conflict, invalid } from '../shared/errors.js';
import type { SpaceRecord } from '../spaces/records.js';

/** decisions §6: content writes (messages, channels, tasks …) need an active Space. */
export function requireActiveSpace(space: SpaceRecord): void {
  if (space.status !== 'active') throw conflict(`Space ${space.slug} is ${space.status}: content can be added only to an active Space`);
}

// A NUL cannot be stored in PostgreSQL text, and a lone surrogate has no UTF-8
// form: either would be stored differently on the two backends, or not at all,
// so neither is accepted (reference: Resource rules, "NUL-free UTF-8 text").
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Surrogate}]/u;

/** Member-written text is stored verbatim, so it must be storable verbatim. */
export function checkText(field: string, text: string): void {
  if (UNSTORABLE.test(text)) throw invalid(`${field} must be UTF-8 text without NUL characters`);
}

/** A message body: storable, and not only white space (there would be nothing to read). */
export function checkBody(body: string): void {
  checkText('body', body);
  if (body.trim() === '') throw invalid('body must not be blank');
}
