import { Type } from '@sinclair/typebox';
import { DEFAULT_RESOURCE_MAX_BYTES } from '../config.js';
import { MEMBER_CREDENTIALS, defineOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { PROTOCOL } from '../shared/protocol.js';
import { SpaceParams } from '../spaces/schemas.js';
import {
  AddVersionBody,
  CreateResourceBody,
  ListResourcesQuery,
  ListVersionsQuery,
  ResourceParams,
  VersionParams,
} from './schemas.js';
import * as resources from './service.js';
import { EXAMPLES } from '../operations/examples.js';

const READER = ['member_key', 'session', 'steward_key'] as const;
const TAG: Tag = 'Resources';

const READ_RULE = 'Follows read access: public for open and request Spaces, admission for invite Spaces.';
const WRITE_RULES =
  'The caller must be allowed to act in the Space and the Space must be `active` (409 otherwise). ' +
  '`content` is Markdown: UTF-8 text without NUL characters (a request body whose bytes are not UTF-8 is 422), ' +
  `at most ATRIUM_RESOURCE_MAX_BYTES bytes of UTF-8 (default ${DEFAULT_RESOURCE_MAX_BYTES}, 1 MiB; 422 above: bytes, not characters). ` +
  '`mime_type` may only be `text/markdown` (the default). Everything is checked before anything is written.';

export const listResources = defineOperation({
  name: 'list_resources',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/resources',
  tag: TAG,
  summary: "List a Space's Resources, most recently updated first",
  description:
    `Current metadata, no bodies. ${READ_RULE} Ordered by \`updated_ts\`, newest first (ties by id). ` +
    '`before` (the last Resource id of the previous page) pages on; `limit` defaults to 100, at most 500.',
  auth: { anonymous: true, schemes: [...READER] },
  params: SpaceParams,
  query: ListResourcesQuery,
  success: { status: 200, description: 'The Resources.', schema: Type.Ref('ResourceList') },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => ({
    resources: await resources.listResources(ctx.db.kysely, actor, params.slug, query),
    protocol: PROTOCOL,
  }),
});

export const createResource = defineOperation({
  name: 'create_resource',
  who: 'space_members',
  method: 'POST',
  path: '/v0/spaces/{slug}/resources',
  tag: TAG,
  summary: 'Create a Markdown Resource',
  description:
    `Creates the Resource and its version 1. ${WRITE_RULES} \`name\` is 1-200 characters, not blank. ` +
    '`kind` is a label fixed at creation, default `document`. Event `resource_created` (identifiers, kind, name, MIME type, ' +
    'digest and byte length; never the content).',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: SpaceParams,
  body: CreateResourceBody,
  bodyRequired: true,
  examples: EXAMPLES.createResource,
  success: { status: 201, description: 'The new Resource (metadata, at version 1).', schema: Type.Ref('Resource') },
  errors: [401, 403, 404, 409],
  handler: async ({ params, body, actor, ctx }) => {
    const content = resources.prepareContent(body.content, body.mime_type, ctx.config.resourceMaxBytes);
    return ctx.db.transaction((tx) =>
      resources.createResource(tx, actor, params.slug, { name: body.name, ...(body.kind !== undefined ? { kind: body.kind } : {}), content }),
    );
  },
});

export const getResource = defineOperation({
  name: 'get_resource',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/resources/{id}',
  tag: TAG,
  summary: 'Read a Resource: current metadata and Markdown text',
  description: `${READ_RULE} A Resource id of another Space is 404 here.`,
  auth: { anonymous: true, schemes: [...READER] },
  params: ResourceParams,
  examples: EXAMPLES.getResource,
  success: { status: 200, description: 'The Resource with the text of its current version.', schema: Type.Ref('ResourceDocument') },
  errors: [401, 403, 404],
  readOnly: true,
  conditional: true,
  handler: async ({ params, actor, ctx, response }) => {
    const answer = await resources.readableResource(ctx.db.kysely, ctx, actor, params.slug, params.id);
    response.sendTagged(answer.body, answer.etag);
    return answer.document;
  },
});

export const updateResource = defineOperation({
  name: 'update_resource',
  who: 'space_members',
  method: 'POST',
  path: '/v0/spaces/{slug}/resources/{id}/versions',
  tag: TAG,
  summary: 'Add a version to a Resource and select it',
  description:
    `Adds the next version and makes it current. ${WRITE_RULES} \`name\` renames the Resource (id and URL stay); omitted, ` +
    'the current name is kept. `expected_version` makes the update a compare-and-swap: if another version was added since, ' +
    'nothing is written and the answer is 409; of concurrent updates with the same `expected_version` exactly one succeeds. ' +
    'Without it, concurrent updates all succeed, in some order. Event `resource_version_added` (identifiers, resulting ' +
    'name, MIME type, digest and byte length; never the content).',
  auth: { anonymous: false, schemes: [...MEMBER_CREDENTIALS] },
  params: ResourceParams,
  body: AddVersionBody,
  bodyRequired: true,
  success: { status: 201, description: 'The Resource (metadata) at its new current version.', schema: Type.Ref('Resource') },
  errors: [401, 403, 404, 409],
  handler: async ({ params, body, actor, ctx }) => {
    const content = resources.prepareContent(body.content, body.mime_type, ctx.config.resourceMaxBytes);
    return ctx.db.transaction((tx) =>
      resources.addVersion(tx, actor, params.slug, params.id, {
        content,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.expected_version !== undefined ? { expected_version: body.expected_version } : {}),
      }),
    );
  },
});

export const listResourceVersions = defineOperation({
  name: 'list_resource_versions',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/resources/{id}/versions',
  tag: TAG,
  summary: "List a Resource's versions, newest first",
  description:
    `Metadata of each version, no bodies. ${READ_RULE} \`before\` (a version number, exclusive) pages back; ` +
    '`limit` defaults to 100, at most 500.',
  auth: { anonymous: true, schemes: [...READER] },
  params: ResourceParams,
  query: ListVersionsQuery,
  success: { status: 200, description: 'The versions, newest first.', schema: Type.Ref('ResourceVersionList') },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, query, actor, ctx }) => ({
    versions: await resources.listVersions(ctx.db.kysely, actor, params.slug, params.id, query),
    protocol: PROTOCOL,
  }),
});

export const getResourceVersion = defineOperation({
  name: 'get_resource_version',
  who: 'space_readers',
  method: 'GET',
  path: '/v0/spaces/{slug}/resources/{id}/versions/{version}',
  tag: TAG,
  summary: 'Read one version of a Resource, with its Markdown text',
  description: `${READ_RULE} Versions are immutable. An unknown version is 404.`,
  auth: { anonymous: true, schemes: [...READER] },
  params: VersionParams,
  success: { status: 200, description: 'The version with its text.', schema: Type.Ref('ResourceVersionDocument') },
  errors: [401, 403, 404],
  readOnly: true,
  handler: async ({ params, actor, ctx }) => resources.readableVersion(ctx.db.kysely, actor, params.slug, params.id, params.version),
});

export const resourceOperations = [listResources, createResource, getResource, updateResource, listResourceVersions, getResourceVersion];
