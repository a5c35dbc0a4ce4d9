import { Type } from '@sinclair/typebox';
import { UntrustedText } from '../content/untrusted.js';
import { DEFAULT_RESOURCE_MAX_BYTES } from '../config.js';
import { idPattern } from '../shared/ids.js';
import { PageLimit, StringEnum, Timestamp } from '../shared/schemas.js';
import { spaceParams } from '../spaces/schemas.js';

/** docs/resources.md: limits and defaults chosen here (the protocol leaves them open). */
export const NAME_MAX = 200;
export const KIND_MAX = 64;
export const DEFAULT_KIND = 'document';
/** protocol: Resources and versions. Only `text/markdown` exists. */
export const MIME_TYPES = ['text/markdown'] as const;
export type ResourceMimeType = (typeof MIME_TYPES)[number];
export const DEFAULT_MIME_TYPE: ResourceMimeType = 'text/markdown';

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 500;

const KIND_PATTERN = '^[a-z0-9]+(?:[-_][a-z0-9]+)*$';
const DIGEST_PATTERN = '^sha256:[0-9a-f]{64}$';

const SIZE_RULE =
  `at most ATRIUM_RESOURCE_MAX_BYTES bytes once encoded as UTF-8 (default ${DEFAULT_RESOURCE_MAX_BYTES}, 1 MiB); ` +
  'the limit counts bytes, not characters.';

/** Version numbers are 32-bit integer columns on PostgreSQL: a larger value could never match, and must not reach a query. */
export const MAX_VERSION = 2147483647;
const VersionNumber = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_VERSION, description });

const MimeType = StringEnum(MIME_TYPES, { description: 'Only `text/markdown` is allowed.' });
const Digest = Type.String({ pattern: DIGEST_PATTERN, description: 'The Blob address: `sha256:` and the hex SHA-256 of the UTF-8 bytes.' });
const ByteLength = Type.Integer({ minimum: 0, description: 'Length of the content in bytes of UTF-8.' });
const Name = UntrustedText({ minLength: 1, maxLength: NAME_MAX, description: 'Title, 1-200 characters.' });
const Content = UntrustedText({ description: 'The Markdown text, verbatim.' });

/** Member-written name and content are untrusted data (protocol: core rule 4). */
const resourceFields = {
  id: Type.String({ description: 'Resource id (`res_…`); stable across versions and renames.' }),
  space: Type.String({ description: 'Slug of the Space the Resource belongs to.' }),
  kind: Type.String({ description: 'Set at creation; `document` unless the creator chose another label.' }),
  name: Name,
  current_version: VersionNumber('The selected (newest) version.'),
  mime_type: MimeType,
  digest: Digest,
  byte_length: ByteLength,
  created_by: Type.String({ description: 'Handle of the member who created the Resource.' }),
  updated_by: Type.String({ description: 'Handle of the member who added the current version.' }),
  created_ts: Timestamp,
  updated_ts: Timestamp,
};

export const ResourceSchema = Type.Object(resourceFields, {
  $id: 'Resource',
  additionalProperties: false,
  description: 'Current metadata of a Resource: `mime_type`, `digest` and `byte_length` are those of its current version.',
});

export const ResourceDocumentSchema = Type.Object(
  { ...resourceFields, content: Content },
  { $id: 'ResourceDocument', additionalProperties: false, description: 'A Resource with the Markdown text of its current version.' },
);

const versionFields = {
  resource_id: Type.String(),
  version: VersionNumber('1 for the first version, then one more for each update.'),
  name: Name,
  mime_type: MimeType,
  digest: Digest,
  byte_length: ByteLength,
  created_by: Type.String({ description: 'Handle of the member who added this version.' }),
  created_ts: Timestamp,
};

export const ResourceVersionSchema = Type.Object(versionFields, {
  $id: 'ResourceVersion',
  additionalProperties: false,
  description: 'An immutable version: the name the Resource had with it, and which bytes (by digest).',
});

export const ResourceVersionDocumentSchema = Type.Object(
  { ...versionFields, content: Content },
  { $id: 'ResourceVersionDocument', additionalProperties: false, description: 'A version with its Markdown text.' },
);

export const ResourceListSchema = Type.Object(
  {
    resources: Type.Array(Type.Ref('Resource'), { description: 'Most recently updated first.' }),
    protocol: Type.String(),
  },
  { $id: 'ResourceList', additionalProperties: false },
);

export const ResourceVersionListSchema = Type.Object(
  {
    versions: Type.Array(Type.Ref('ResourceVersion'), { description: 'Newest first.' }),
    protocol: Type.String(),
  },
  { $id: 'ResourceVersionList', additionalProperties: false },
);

export const resourceSchemas = [
  ResourceSchema,
  ResourceDocumentSchema,
  ResourceVersionSchema,
  ResourceVersionDocumentSchema,
  ResourceListSchema,
  ResourceVersionListSchema,
];

const NameInput = (description: string) => Type.String({ minLength: 1, maxLength: NAME_MAX, description });
const ContentInput = Type.String({ description: `Markdown; UTF-8 text without NUL characters, ${SIZE_RULE}` });
const MimeTypeInput = Type.Optional(StringEnum(MIME_TYPES, { description: 'Default `text/markdown`, the only type allowed (422 otherwise).' }));

export const CreateResourceBody = Type.Object(
  {
    name: NameInput('1-200 characters, not blank.'),
    content: ContentInput,
    mime_type: MimeTypeInput,
    kind: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: KIND_MAX,
        pattern: KIND_PATTERN,
        description: `A label: lowercase letters and digits, single \`-\` or \`_\` between them, at most ${KIND_MAX} characters. Default \`${DEFAULT_KIND}\`. Fixed for the life of the Resource.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const AddVersionBody = Type.Object(
  {
    content: ContentInput,
    name: Type.Optional(NameInput('Renames the Resource (id and URL stay); omitted keeps the current name.')),
    mime_type: MimeTypeInput,
    expected_version: Type.Optional(
      VersionNumber('Compare-and-swap: the version this update is based on. If it is no longer the current version, nothing is written (409).'),
    ),
  },
  { additionalProperties: false },
);

const ResourceIdParam = Type.String({ pattern: idPattern('res'), description: 'The Resource id.' });
export const ResourceParams = spaceParams({ id: ResourceIdParam });
export const VersionParams = spaceParams({ id: ResourceIdParam, version: VersionNumber('Version number.') });

export const ListResourcesQuery = Type.Object(
  {
    before: Type.Optional(
      Type.String({ pattern: idPattern('res'), description: 'A Resource id from the previous page (its last): only Resources listed after it.' }),
    ),
    limit: Type.Optional(PageLimit(DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT)),
  },
  { additionalProperties: false },
);

export const ListVersionsQuery = Type.Object(
  {
    before: Type.Optional(VersionNumber('Only versions with a lower number (exclusive): the last version of the previous page.')),
    limit: Type.Optional(PageLimit(DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT)),
  },
  { additionalProperties: false },
);
