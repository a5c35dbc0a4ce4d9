import { Type, type Static } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { PageLimit, StringEnum, Timestamp } from '../shared/schemas.js';
import { spaceParams } from '../spaces/schemas.js';
import { PIN_ENTRY_MAX, PIN_ENTRY_PATTERN, REPOSITORY_PATH_PATTERN, REPO_PREFIX } from './paths.js';

/** docs/pins.md: limits chosen here where the protocol leaves them open. */
export const MAX_PINS = 5;
export const PIN_REASON_MAX = 500;
export const RATIONALE_MAX = 2000;
export const DECLINE_REASON_MAX = 1000;
export const REPOSITORY_PATH_MAX = PIN_ENTRY_MAX - REPO_PREFIX.length;

export const PROPOSAL_STATUSES = ['pending', 'accepted', 'declined'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

const PinEntry = Type.String({
  minLength: 1,
  maxLength: PIN_ENTRY_MAX,
  pattern: PIN_ENTRY_PATTERN,
  description: 'A Resource id of this Space, or `repo:<path>.md` naming a file on the `main` branch of the host repository.',
});

const PinReason = Type.String({ maxLength: PIN_REASON_MAX, description: 'Why; recorded in the `space_pins_updated` event. Default empty.' });

export const SetPinsBody = Type.Object(
  {
    resource_ids: Type.Array(PinEntry, {
      maxItems: MAX_PINS,
      uniqueItems: true,
      description: 'The whole pin list, in order; the first pin is by convention the README. Empty clears it.',
    }),
    reason: Type.Optional(PinReason),
  },
  { additionalProperties: false },
);
export type SetPinsInput = Static<typeof SetPinsBody>;

export const AppendPinBody = Type.Object(
  {
    // No pattern: a repository path here is refused by the service with words saying why (append never takes one).
    resource_id: Type.String({ minLength: 1, maxLength: PIN_ENTRY_MAX, description: 'A Resource id of this Space (never a repository path).' }),
    reason: Type.Optional(PinReason),
  },
  { additionalProperties: false },
);
export type AppendPinInput = Static<typeof AppendPinBody>;

const ProposalId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The pin proposal (a task id).' });
export const ProposalParams = spaceParams({ id: ProposalId });

/** One pin of the front page, in pin order. Names, paths and bodies are content: untrusted (protocol: core rule 4). */
export const FrontPagePinSchema = Type.Object(
  {
    id: Type.String({ description: 'The entry as it stands in `pinned_resources`.' }),
    kind: StringEnum(['resource', 'repository']),
    name: UntrustedText({ description: "The Resource's current name; for a repository pin, its path." }),
    missing: Type.Boolean({
      description: 'True when there is nothing to show: the file is gone from `main` or is no longer UTF-8 text (or, defensively, the Resource is gone).',
    }),
    body: Type.Union([UntrustedText({ description: 'Markdown.' }), Type.Null()], { description: 'The Markdown; null when missing.' }),
    version: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "The Resource version shown; null for repository pins and missing Resources." }),
    commit: Type.Union([Type.String(), Type.Null()], { description: 'For repository pins: the commit of `main` the file was read from (null when there is no readable `main`).' }),
  },
  { $id: 'FrontPagePin', additionalProperties: false },
);
export type FrontPagePin = Static<typeof FrontPagePinSchema>;

export const FrontPageSchema = Type.Object(
  {
    space: Type.String(),
    pins: Type.Array(Type.Ref('FrontPagePin'), { maxItems: MAX_PINS }),
    protocol: Type.String(),
  },
  { $id: 'FrontPage', additionalProperties: false },
);
/** `pins` names its items by reference, which has no static type of its own: they are `FrontPagePin`s. */
export type FrontPage = Omit<Static<typeof FrontPageSchema>, 'pins'> & { pins: FrontPagePin[] };

export const RepositoryFileQuery = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      maxLength: REPOSITORY_PATH_MAX,
      pattern: REPOSITORY_PATH_PATTERN,
      description: 'Path of a `.md` file on `main`, relative to the repository root (without `repo:`).',
    }),
  },
  { additionalProperties: false },
);

export const RepositoryFileSchema = Type.Object(
  {
    space: Type.String(),
    path: UntrustedText(),
    commit: Type.String({ description: 'The commit of `main` the file was read from.' }),
    byte_length: Type.Integer({ minimum: 0 }),
    body: UntrustedText({ description: 'The Markdown, verbatim.' }),
  },
  { $id: 'RepositoryFile', additionalProperties: false },
);
export type RepositoryFile = Static<typeof RepositoryFileSchema>;

/** A pin proposal (protocol: Pin proposals): a `pin_proposal` task seen through its own lens. */
export const PinProposalSchema = Type.Object(
  {
    id: ProposalId,
    space: Type.String(),
    resource_id: Type.String(),
    rationale: UntrustedText({ minLength: 1, maxLength: RATIONALE_MAX }),
    status: StringEnum(PROPOSAL_STATUSES),
    proposed_by: Type.String(),
    decided_by: Type.Union([Type.String(), Type.Null()], {
      description: 'Who accepted or declined it; null while pending, and when the steward key decided.',
    }),
    decline_reason: Type.Union([UntrustedText({ maxLength: DECLINE_REASON_MAX }), Type.Null()], { description: 'Set when declined.' }),
    created_ts: Timestamp,
    decided_ts: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'PinProposal', additionalProperties: false },
);
export type PinProposalRecord = Static<typeof PinProposalSchema>;

export const PinProposalRef = Type.Ref('PinProposal');

export const ProposePinBody = Type.Object(
  {
    resource_id: Type.String({ minLength: 1, maxLength: PIN_ENTRY_MAX, description: 'A Resource of this Space that is not pinned.' }),
    rationale: Type.String({ minLength: 1, maxLength: RATIONALE_MAX, description: 'Why it belongs on the front page; not blank.' }),
  },
  { additionalProperties: false },
);
export type ProposePinInput = Static<typeof ProposePinBody>;

export const DeclineBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: DECLINE_REASON_MAX, description: 'Why not; not blank. Recorded in the event.' }) },
  { additionalProperties: false },
);

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 500;

export const ListProposalsQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(PROPOSAL_STATUSES, { description: 'Only proposals in this state; all of them unless given.' })),
    before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Only proposals with a smaller id: the next page.' })),
    limit: Type.Optional(PageLimit(DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT)),
  },
  { additionalProperties: false },
);
export type ProposalFilters = Static<typeof ListProposalsQuery>;

export const pinSchemas = [FrontPagePinSchema, FrontPageSchema, RepositoryFileSchema, PinProposalSchema];
