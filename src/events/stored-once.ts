import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from '../storage/dialect.js';

/**
 * A message's body is stored once, in its message (docs/events.md, "What an
 * event stores"). `message_posted` carries the body on the wire, because a
 * message is itself the notification: feeds, the web app and agents read what
 * was said from the event. But the event row need not hold a second copy. It
 * keeps `message_id`, which its payload names anyway, and a feed read fills
 * the body in from the message. A 200-character message then costs about a
 * fifth less to store.
 *
 * Messages are never changed after posting, so an event read this way is the
 * event as it was emitted, and a kept page (page-cache.ts) stays true. Events
 * written before this rule keep their own copy, and are served as stored.
 * The reference lives inside the payload rather than in a column of its own, so a
 * node of an earlier release that numbers events (the sequencer copies rows
 * column by column) can never drop it.
 */

/** The payload as an event row keeps it: without the body its message holds. */
export function storedPayload(type: string, payload: object): object {
  if (type !== 'message_posted' || !('body' in payload)) return payload;
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
    ? sql<number>`case when events.type = 'message_posted' then (events.payload::json ->> 'message_id')::bigint end`
    : sql<number>`case when events.type = 'message_posted' then json_extract(events.payload, '$.message_id') end`;
}

/**
 * The payload as the event was emitted: a body left out of the row is put
 * back where the payload's declaration has it (after `author`), so the JSON a
 * client receives is the same whichever way the event was stored.
 */
export function emittedPayload(type: string, payload: Record<string, unknown>, messageBody: string | null): Record<string, unknown> {
  if (type !== 'message_posted' || messageBody === null || 'body' in payload) return payload;
  const whole: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    whole[key] = value;
    if (key === 'author') whole.body = messageBody;
  }
  if (!('body' in whole)) whole.body = messageBody;
  return whole;
}
