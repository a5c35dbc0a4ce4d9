import { Type, type Static } from '@sinclair/typebox';
import { ChannelName } from '../channels/schemas.js';
import { STORABLE_TEXT_PATTERN } from '../content/text.js';

/**
 * The Space subscription filter (docs/webhooks.md, "Filters"): an event
 * qualifies when any clause matches, and a clause matches when all of its
 * parts do. The shape is the schema: anything else is refused with 422 at the
 * edge, before a subscription could hold a filter that means nothing.
 */
// A shared schema, reached by reference, so the operations' storable-text marking
// never sees these strings: they state the rule the edge enforces themselves.
const TypeMatcher = Type.Union([
  Type.Object(
    { prefix: Type.String({ minLength: 1, maxLength: 64, pattern: STORABLE_TEXT_PATTERN, description: 'Types starting with this, e.g. `task_`' }) },
    { additionalProperties: false },
  ),
  Type.Object(
    { exact: Type.String({ minLength: 1, maxLength: 64, pattern: STORABLE_TEXT_PATTERN, description: 'This type, e.g. `message_posted`' }) },
    { additionalProperties: false },
  ),
]);

const SubjectMatcher = Type.Union([
  Type.Object({ channel: { ...ChannelName, description: 'Messages of this channel, by name' } }, { additionalProperties: false }),
  Type.Object({ task: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "This task's events and its discussion" }) }, { additionalProperties: false }),
]);

const Clause = Type.Object(
  {
    event_types: Type.Optional(Type.Array(TypeMatcher, { minItems: 1, maxItems: 20, description: 'Any of these types; absent: every type' })),
    subject: Type.Optional(SubjectMatcher),
  },
  { additionalProperties: false },
);

export const WebhookFilterSchema = Type.Object(
  { any: Type.Array(Clause, { minItems: 1, maxItems: 20, description: 'An event qualifies when it matches every part of some clause' }) },
  {
    $id: 'WebhookFilter',
    additionalProperties: false,
    description: 'Which events of the Space wake the subscription (none: every event the owner may read)',
  },
);

export type WebhookFilter = Static<typeof WebhookFilterSchema>;

/** What the filter looks at: an event's type and subjects. */
export interface FilteredEvent {
  type: string;
  subjects: readonly string[];
}

export function matchesFilter(filter: WebhookFilter | null, event: FilteredEvent): boolean {
  if (filter === null) return true;
  return filter.any.some((clause) => matchesClause(clause, event));
}

function matchesClause(clause: WebhookFilter['any'][number], event: FilteredEvent): boolean {
  if (clause.event_types && !clause.event_types.some((m) => ('exact' in m ? event.type === m.exact : event.type.startsWith(m.prefix)))) {
    return false;
  }
  if (clause.subject) {
    const subject = 'channel' in clause.subject ? `channel:${clause.subject.channel}` : `task:${clause.subject.task}`;
    if (!event.subjects.includes(subject)) return false;
  }
  return true;
}
