import { Type, type Static } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { SpaceSlug } from '../spaces/schemas.js';
import { StringEnum, Timestamp } from '../shared/schemas.js';

/** The kinds of record search finds, as `kind=` and `kind:` name them. */
export const SEARCH_KINDS = ['message', 'task', 'resource'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export const MAX_QUERY_LENGTH = 500;
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;

export const SearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: MAX_QUERY_LENGTH,
      description:
        'What to find, 1-500 characters: words (all must match; `word*` for a prefix), `"phrases"`, `-word` to exclude, and the operators ' +
        '`from:<handle>`, `in:<space>`, `in:<space>/<channel>`, `kind:message|task|resource`, `is:dm`, `before:YYYY-MM-DD`, `after:YYYY-MM-DD`.',
    }),
    space: Type.Optional({ ...SpaceSlug, description: 'Only this Space (as `in:<space>` does).' }),
    kind: Type.Optional(StringEnum(SEARCH_KINDS, { description: 'Only this kind of record (as `kind:` does).' })),
    sort: Type.Optional(
      StringEnum(['relevance', 'newest'], {
        description: '`relevance` (the default): most relevant first, newest first among equals. `newest`: by time alone.',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_LIMIT, description: 'Results per page, 1-100 (default 20).' })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "The previous page's `next_cursor`, with the same `q` and filters." }),
    ),
  },
  { additionalProperties: false },
);
export type SearchRequest = Static<typeof SearchQuery>;

// An array of two rather than a tuple: generated clients type a fixed-length array alike, and
// several of them (openapi-typescript among them) do not read the older tuple form.
const Highlight = Type.Array(Type.Integer({ minimum: 0 }), {
  minItems: 2,
  maxItems: 2,
  description: 'A matched span of `snippet`: its start and end offsets in Unicode code points, end exclusive.',
});

export const SearchResultSchema = Type.Object(
  {
    kind: StringEnum(SEARCH_KINDS),
    space: Type.String(),
    id: Type.Union([Type.Integer({ minimum: 1 }), Type.String()], {
      description: "The record's id: a message's or a task's integer id, a Resource's `res_…` id.",
    }),
    channel: Type.Optional(Type.String({ description: 'Channel messages: the channel.' })),
    task_id: Type.Optional(Type.Integer({ minimum: 1, description: "Task discussion messages: the task whose discussion holds it." })),
    direct_members: Type.Optional(
      Type.Array(Type.String(), { minItems: 2, maxItems: 2, description: 'Direct messages: the two participants, sorted.' }),
    ),
    title: Type.Optional(UntrustedText({ description: "Tasks: the title. Resources: the current version's name." })),
    author: Type.String({ description: "A message's author, a task's creator, the author of a Resource's current version." }),
    created_ts: Timestamp,
    snippet: UntrustedText({ description: 'Plain text from the record around what matched.' }),
    highlights: Type.Array(Highlight, { description: 'Where `snippet` matched, in order, not overlapping.' }),
    event_cursor: Type.Integer({ minimum: 1, description: 'The cursor of the event that made the matched text current.' }),
  },
  { $id: 'SearchResult', additionalProperties: false },
);
export type SearchResult = Static<typeof SearchResultSchema>;

export const SearchPageSchema = Type.Object(
  {
    protocol: Type.String(),
    results: Type.Array(Type.Ref('SearchResult')),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last.' }),
  },
  { $id: 'SearchPage', additionalProperties: false },
);
/** `results` names its items by reference, which has no static type of its own: they are `SearchResult`s. */
export type SearchPage = Omit<Static<typeof SearchPageSchema>, 'results'> & { results: SearchResult[] };
