import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from '../storage/dialect.js';

/**
 * A message's bodies are stored once, in the message and its earlier versions
 * (docs/events.md, "What an event stores"). `message_posted` and
 * `message_edited` carry a body on the wire, because a message is itself the
 * notification: feeds, the web app and agents read what was said from the
 * event. But the event row need not hold a second copy. It keeps
 * `message_id`, which its payload names anyway, and the version it is about
 * (`message_posted`: 1; `message_edited`: its payload's `version`), and a feed
 * read fills in that version's body. A 200-character message then costs about
 * a fifth less to store.
 *
 * A version's body never changes once written: an edit adds a version, and
 * the body it replaces moves to `message_versions` unchanged. So an event read
 * this way is the event as it was emitted, and a kept page (page-cache.ts)
 * stays true; only deleting a message takes bodies away, and that drops the
 * kept pages holding them (the tail sees `message_deleted`). Events written
 * before this rule keep their own copy, and are served as stored (a deletion
 * removes it). The reference lives inside the payload rather than in a column
 * of its own, so a node of an earlier release that numbers events (the
 * sequencer copies rows column by column) can never drop it.
 */

/** The event types whose row leaves out the body of the message version it names. */
export const BODY_BY_REFERENCE: readonly string[] = ['message_posted', 'message_edited'];

/** The payload as an event row keeps it: without the body its message holds. */
export function storedPayload(type: string, payload: object): object {
  if (!BODY_BY_REFERENCE.includes(type) || !('body' in payload)) return payload;
  const { body: _body, ...rest } = payload as { body: unknown };
  return rest;
}

/**
 * The id of the message whose body an event row's payload leaves out, as SQL
 * over `events`: it is joined to `messages.id` when a page is read. Both
 * databases keep the payload as JSON text.
 */
export function referencedMessageId(dialect: Dialect): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`case when events.type in ('message_posted', 'message_edited') then (events.payload::json ->> 'message_id')::bigint end`
    : sql<number>`case when events.type in ('message_posted', 'message_edited') then json_extract(events.payload, '$.message_id') end`;
}

/** Which version of that message the event is about, as SQL over `events`. */
export function referencedVersion(dialect: Dialect): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`case events.type when 'message_posted' then 1 when 'message_edited' then (events.payload::json ->> 'version')::integer end`
    : sql<number>`case events.type when 'message_posted' then 1 when 'message_edited' then json_extract(events.payload, '$.version') end`;
}

/**
 * The payload as the event was emitted: a body left out of the row is put
 * back where the payload's declaration has it (after `author`), so the JSON a
 * client receives is the same whichever way the event was stored. A body that
 * is gone (the message was deleted) stays out.
 */
export function emittedPayload(type: string, payload: Record<string, unknown>, messageBody: string | null): Record<string, unknown> {
  if (!BODY_BY_REFERENCE.includes(type) || messageBody === null || 'body' in payload) return payload;
  const whole: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    whole[key] = value;
    if (key === 'author') whole.body = messageBody;
  }
  if (!('body' in whole)) whole.body = messageBody;
  return whole;
}
