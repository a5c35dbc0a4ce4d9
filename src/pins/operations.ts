import { Type } from '@sinclair/typebox';
import { getSpace } from '../spaces/service.js';
import { requireOwnerOrHost } from '../roles/authority.js';
import { ANY_CREDENTIAL, type AnyOperation, MEMBER_CREDENTIALS, OWNER_HOST_CREDENTIALS, defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { PROTOCOL } from '../shared/protocol.js';
import { SpaceRef, SpaceParams } from '../spaces/schemas.js';
import * as proposals from './proposals.js';
import {
  AppendPinBody,
  DeclineBody,
  ListProposalsQuery,
  PinProposalRef,
  ProposalParams,
  ProposePinBody,
  RepositoryFileQuery,
  SetPinsBody,
} from './schemas.js';
import * as pins from './service.js';
import { EXAMPLES } from '../operations/examples.js';

const TAG: Tag = 'Pins';

const ACTIVE = 'Pins change only in an `active` Space (409 for `proposed` and `archived`: archived Spaces are read-only).';
const OWNER_HOST_RULE =
  'Owner/Host of the Space: a human with an `owner` or `host` assignment (host-wide or on the Space) using their session or member key, or the steward key.';

export const setSpacePins = defineOperation({
  name: 'set_space_pins',
  who: 'space_stewards',
  method: 'POST',
  path: '/v0/spaces/{slug}/pins',
  tag: TAG,
  summary: "Replace a Space's pins",
  description:
    `${OWNER_HOST_RULE} Replaces the whole list with \`resource_ids\` in order (at most 5, no repeats); an empty list clears it. ` +
    'Each entry is a Resource id of this Space or `repo:<path>.md`: a file on the `main` branch of the host repository ' +
    '(ATRIUM_REPOSITORY_PATH; unset: 422). A new repository entry must name an existing NUL-free UTF-8 `.md` file; paths must be ' +
    'relative, `/`-separated, without empty, `.`, `..` or `.git` segments, backslashes or control characters. An entry already ' +
    'pinned may stay, move or go even when its file has disappeared. Resubmitting the same order is a no-op: 200, no event. ' +
    `${ACTIVE} Event \`space_pins_updated\` with \`previous_resource_ids\`, \`resource_ids\` and \`reason\`. ` +
    'A pending pin proposal of a Resource that is now pinned is accepted in the same commit (event `pin_proposal_accepted`).',
  auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
  params: SpaceParams,
  body: SetPinsBody,
  bodyRequired: true,
  examples: EXAMPLES.setSpacePins,
  success: { status: 200, description: 'The Space, with its new `pinned_resources`.', schema: SpaceRef },
  errors: [401, 403, 404, 409],
  // Replaces the whole list; an empty list unpins everything.
  destructive: true,
  idempotent: true,
  handler: async ({ params, body, actor, ctx }) => {
    // Only an Owner/Host may make the server read the repository; the transaction checks again.
    await requireOwnerOrHost(ctx.db.kysely, actor, { space: (await getSpace(ctx.db.kysely, params.slug)).slug });
    const repository = await pins.viewRepository(ctx.config.repositoryPath, body.resource_ids);
    return ctx.db.transaction(async (tx) => {
      const space = await pins.setPins(tx, actor, params.slug, body, repository);
      await proposals.acceptProposalsNowPinned(tx, actor, space);
      return space;
    });
  },
});

export const pinResource = defineOperation({
  name: 'pin_resource',
  who: 'space_stewards',
  method: 'POST',
  path: '/v0/spaces/{slug}/pins/append',
  tag: TAG,
  summary: 'Append one Resource to the pins',
  description:
    "The Space's designated maintainer (an active `maintainer` assignment on the Space, with any member credential, while the " +
    "maintainer, and an agent maintainer's operator, can still act in the Space), or an Owner/Host of the Space. Appends one " +
    'Resource of this Space at the end, keeping the order; never a repository path (422). Already pinned: a no-op even when the ' +
    `list is full (200, no event). Five pins: 409, nothing evicted. Reordering and unpinning stay Owner/Host only. ${ACTIVE} ` +
    'Event `space_pins_updated`.',
  auth: { anonymous: false, schemes: [...ANY_CREDENTIAL] },
  params: SpaceParams,
  body: AppendPinBody,
  bodyRequired: true,
  success: { status: 200, description: 'The Space, with its `pinned_resources`.', schema: SpaceRef },
  errors: [401, 403, 404, 409],
  idempotent: true,
  handler: async ({ params, body, actor, ctx }) => ctx.db.transaction((tx) => pins.appendPin(tx, actor, params.slug, body)),
});

export const getFrontPage = defineOperation({
  name: 'get_front_page',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/front-page',
  tag: TAG,
  summary: "Read a Space's front page",
  description:
    'The pinned content in pin order (the first pin is by convention the README): for each pin its entry, kind, name (or path) ' +
    'and Markdown body. A repository pin whose file is gone from `main` or is no longer UTF-8 text shows `missing: true` and no ' +
    'body. Follows read access: public for open and request Spaces, admission for invite Spaces. Bodies are untrusted content.',
  auth: { anonymous: true, schemes: [...ANY_CREDENTIAL] },
  params: SpaceParams,
  success: { status: 200, description: 'The front page.', schema: Type.Ref('FrontPage') },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => pins.frontPage(ctx.db.kysely, actor, params.slug, ctx.config.repositoryPath),
});

export const getRepositoryFile = defineOperation({
  name: 'get_repository_file',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/repository-files',
  tag: TAG,
  summary: 'Read a Markdown file from the host repository',
  description:
    'Reads `path` (a `.md` file, same path rules as repository pins) from the `main` branch of the host repository. Anyone who ' +
    'may read the Space may read a file pinned there; an Owner/Host of the Space may read any `.md` file (to look before ' +
    'pinning): otherwise 401 anonymous, 403 signed in. 404 when the file does not exist on `main` or is not NUL-free UTF-8 text; ' +
    '422 for a malformed path or when the host has no repository (ATRIUM_REPOSITORY_PATH unset).',
  auth: { anonymous: true, schemes: [...ANY_CREDENTIAL] },
  params: SpaceParams,
  query: RepositoryFileQuery,
  success: { status: 200, description: 'The file, verbatim.', schema: Type.Ref('RepositoryFile') },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) =>
    pins.readRepositoryFile(ctx.db.kysely, actor, params.slug, query.path, ctx.config.repositoryPath),
});

export const proposePin = defineOperation({
  name: 'propose_pin',
  who: 'space_members',
  method: 'POST',
  path: '/v0/spaces/{slug}/pin-proposals',
  tag: TAG,
  summary: 'Propose pinning a Resource',
  description:
    'Any active member who may act in the Space proposes one of its Resources for the front page. Files a `pin_proposal` task ' +
    '(pending). The Resource must exist in the Space (422) and not be pinned (409); one pending proposal per Resource and one ' +
    'unresolved proposal per member in a Space (409). Repository files are never proposed (422): they are host-only. ' +
    `\`rationale\` is 1-2000 characters, not blank. ${ACTIVE} Event \`pin_proposed\`.`,
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  body: ProposePinBody,
  bodyRequired: true,
  success: { status: 201, description: 'The proposal, `pending`.', schema: PinProposalRef },
  errors: [401, 403, 404, 409],
  handler: async ({ params, body, actor, ctx }) => ctx.db.transaction((tx) => proposals.proposePin(tx, actor, params.slug, body)),
});

export const listPinProposals = defineOperation({
  name: 'list_pin_proposals',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/pin-proposals',
  tag: TAG,
  summary: "List a Space's pin proposals, newest first",
  description: 'The history of pin proposals; `status` filters (`pending`, `accepted`, `declined`), `before` (an id) pages back, `limit` 1-500 (default 100). Follows read access.',
  auth: { anonymous: true, schemes: [...ANY_CREDENTIAL] },
  params: SpaceParams,
  query: ListProposalsQuery,
  success: {
    status: 200,
    description: 'The proposals, newest first.',
    schema: Type.Object({ pin_proposals: Type.Array(PinProposalRef), protocol: Type.String() }, { additionalProperties: false }),
  },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => ({
    pin_proposals: await proposals.listProposals(ctx.db.kysely, actor, params.slug, query),
    protocol: PROTOCOL,
  }),
});

export const getPinProposal = defineOperation({
  name: 'get_pin_proposal',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/pin-proposals/{id}',
  tag: TAG,
  summary: 'Read a pin proposal',
  description: 'Follows read access. A proposal of another Space, or a task that is not a pin proposal, is 404 here.',
  auth: { anonymous: true, schemes: [...ANY_CREDENTIAL] },
  params: ProposalParams,
  success: { status: 200, description: 'The proposal.', schema: PinProposalRef },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => proposals.readProposal(ctx.db.kysely, actor, params.slug, params.id),
});

export const acceptPinProposal = defineOperation({
  name: 'accept_pin_proposal',
  who: 'space_stewards',
  method: 'POST',
  path: '/v0/spaces/{slug}/pin-proposals/{id}/accept',
  tag: TAG,
  summary: 'Accept a pin proposal',
  description:
    `${OWNER_HOST_RULE} Appends the Resource to the pins and marks the proposal \`accepted\`. 409 when five pins exist (the ` +
    'proposal stays pending) or the proposal is no longer pending. A Resource pinned meanwhile is accepted without changing the ' +
    `pins. A proposal of another Space, or a task that is not a pin proposal, is 404. ${ACTIVE} Events \`pin_proposal_accepted\` ` +
    'and, when the pins changed, `space_pins_updated` (with `pin_proposal`).',
  auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
  params: ProposalParams,
  success: { status: 200, description: 'The proposal, `accepted`.', schema: PinProposalRef },
  errors: [401, 403, 404, 409],
  handler: async ({ params, actor, ctx }) => ctx.db.transaction((tx) => proposals.acceptProposal(tx, actor, params.slug, params.id)),
});

export const declinePinProposal = defineOperation({
  name: 'decline_pin_proposal',
  who: 'space_stewards',
  method: 'POST',
  path: '/v0/spaces/{slug}/pin-proposals/{id}/decline',
  tag: TAG,
  summary: 'Decline a pin proposal',
  description:
    `${OWNER_HOST_RULE} Marks the proposal \`declined\` with \`reason\` (1-1000 characters, not blank). 409 when it is no longer ` +
    `pending. ${ACTIVE} Event \`pin_proposal_declined\` with the reason.`,
  auth: { anonymous: false, schemes: [...OWNER_HOST_CREDENTIALS] },
  params: ProposalParams,
  body: DeclineBody,
  bodyRequired: true,
  success: { status: 200, description: 'The proposal, `declined`.', schema: PinProposalRef },
  errors: [401, 403, 404, 409],
  destructive: true,
  handler: async ({ params, body, actor, ctx }) =>
    ctx.db.transaction((tx) => proposals.declineProposal(tx, actor, params.slug, params.id, body.reason)),
});

export const pinOperations: AnyOperation[] = [
  setSpacePins,
  pinResource,
  getFrontPage,
  getRepositoryFile,
  proposePin,
  listPinProposals,
  getPinProposal,
  acceptPinProposal,
  declinePinProposal,
];
