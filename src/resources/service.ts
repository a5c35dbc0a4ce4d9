import { createHash } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import { findUnstorableText } from '../content/text.js';
import type { Actor } from '../identity/actor.js';
import { requireActiveSpace } from '../messages/content.js';
import { conflict, invalid, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { indexResource } from '../search/index-writes.js';
import { requireAct, requireRead } from '../spaces/admission.js';
import type { KnownSpaces } from '../spaces/known-spaces.js';
import { getSpace, getSpaceWithMembership } from '../spaces/service.js';
import type { Tx } from '../storage/database.js';
import { PreparedStatement } from '../storage/prepared.js';
import type { DatabaseSchema } from '../storage/schema.js';
import {
  toResourceRecord,
  toResourceVersionRecord,
  type ResourceRecord,
  type ResourceVersionDocument,
  type ResourceVersionRecord,
} from './records.js';
import type { KeptResources, ResourceAnswer } from './kept-documents.js';
import type { BlobTable, ResourceVersionTable } from './tables.js';
import { DEFAULT_KIND, DEFAULT_LIST_LIMIT, DEFAULT_MIME_TYPE, MIME_TYPES, type ResourceMimeType } from './schemas.js';

/**
 * Versioned Markdown Resources over content-addressed blobs (protocol:
 * Resources and versions; docs/resources.md). A Resource row names
 * its current version; each version is an immutable row pointing at a blob by
 * digest; equal bytes are stored once. Advancing `current_version` is a
 * conditional UPDATE, so of two updates based on the same version exactly one
 * commits.
 */

type Reader = Kysely<DatabaseSchema>;

/** Content checked and encoded before any transaction opens (protocol: Resources and versions). */
export interface PreparedContent {
  text: string;
  bytes: Buffer;
  digest: string;
  mime_type: ResourceMimeType;
}

/**
 * Every content check, in the order docs/resources.md gives: MIME allowlist, NUL-free
 * text, then the final UTF-8 byte length. The edge already refuses NUL, lone
 * surrogates and bytes that are not UTF-8 in any JSON body; checking again here
 * keeps this function safe for callers that do not come through it.
 */
export function prepareContent(text: string, mimeType: string | undefined, maxBytes: number): PreparedContent {
  const mime = mimeType ?? DEFAULT_MIME_TYPE;
  if (!(MIME_TYPES as readonly string[]).includes(mime)) throw invalid('validation_failed', `body.mime_type must be one of: ${MIME_TYPES.join(', ')}`);
  if (findUnstorableText(text)) throw invalid('validation_failed', 'body.content must be UTF-8 text without NUL characters or unpaired surrogates');
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > maxBytes) {
    throw invalid('validation_failed', `body.content is ${bytes.length} bytes of UTF-8; the limit is ${maxBytes} bytes`);
  }
  return { text, bytes, digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, mime_type: mime as ResourceMimeType };
}

function checkName(name: string): void {
  if (name.trim() === '') throw invalid('validation_failed', 'body.name must not be blank');
}

export interface NewResource {
  name: string;
  kind?: string;
  content: PreparedContent;
}

export interface NewVersion {
  content: PreparedContent;
  name?: string;
  expected_version?: number;
}

export interface ListFilters {
  before?: string;
  limit?: number;
}

export interface VersionFilters {
  before?: number;
  limit?: number;
}

/** A Resource joined with its current version: the metadata every read returns. */
function resourceQuery(db: Reader) {
  return db
    .selectFrom('resources as r')
    .innerJoin('resource_versions as v', (join) => join.onRef('v.resource_id', '=', 'r.id').onRef('v.version', '=', 'r.current_version'))
    .select([
      'r.id',
      'r.space',
      'r.kind',
      'r.name',
      'r.current_version',
      'v.mime_type',
      'v.digest',
      'v.byte_length',
      'r.created_by',
      'v.created_by as updated_by',
      'r.created_ts',
      'r.updated_ts',
    ]);
}

/**
 * The current metadata of a Resource of this Space, or undefined: an id of
 * another Space is not found here. No access check (callers decide); stable
 * for other capabilities (pins).
 */
export async function findResource(db: Reader, space: string, id: string): Promise<ResourceRecord | undefined> {
  const row = await resourceQuery(db).where('r.id', '=', id).where('r.space', '=', space).executeTakeFirst();
  return row ? toResourceRecord(row) : undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The Markdown text of a version (the current one when omitted), or undefined
 * when the Resource or that version does not exist. No access check; stable
 * for other capabilities (pins).
 */
export async function readResourceBody(db: Reader, id: string, version?: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('resources as r')
    .innerJoin('resource_versions as v', (join) => {
      const same = join.onRef('v.resource_id', '=', 'r.id');
      return version === undefined ? same.onRef('v.version', '=', 'r.current_version') : same.on('v.version', '=', version);
    })
    .innerJoin('blobs as b', 'b.digest', 'v.digest')
    .select('b.bytes')
    .where('r.id', '=', id)
    .executeTakeFirst();
  return row ? utf8.decode(row.bytes) : undefined;
}

async function requireResource(db: Reader, slug: string, id: string): Promise<ResourceRecord> {
  const resource = await findResource(db, slug, id);
  if (!resource) throw notFound('resource_not_found', `no Resource ${id} in Space ${slug}`);
  return resource;
}

/** The Space a Resource write happens in: the caller may act there (protocol: Space admission) and it is `active` (409). */
async function writableSpace(tx: Tx, actor: Actor, slug: string): Promise<string> {
  const { space, known } =
    actor.kind === 'member' ? await getSpaceWithMembership(tx.db, slug, actor.member.handle) : { space: await getSpace(tx.db, slug), known: undefined };
  const member = await requireAct(tx.db, actor, space, known);
  requireActiveSpace(space);
  return member.member.handle;
}

/** Equal bytes share one blob; a concurrent insert of the same digest is not an error. */
async function storeBlob(tx: Tx, content: PreparedContent, ts: string): Promise<void> {
  await STORE_BLOB.execute(tx.db, blobRow(content, ts));
}

function blobRow(content: PreparedContent, ts: string): Insertable<BlobTable> {
  return { digest: content.digest, bytes: content.bytes, byte_length: content.bytes.length, created_ts: ts };
}

// A new version's statements are built once (storage/prepared.ts): the query builder cost more than a small version's SQL.
const STORE_BLOB = new PreparedStatement((db, blob: Insertable<BlobTable>) =>
  db
    .insertInto('blobs')
    .values(blob)
    .onConflict((oc) => oc.column('digest').doNothing()),
);
const INSERT_VERSION = new PreparedStatement((db, version: Insertable<ResourceVersionTable>) => db.insertInto('resource_versions').values(version));
/**
 * An increment even for compare-and-swap, where the WHERE pins the old value:
 * `expected_version + 1` as a parameter could overflow PostgreSQL's 32-bit
 * column and fail the statement before the condition is consulted.
 */
const ADVANCE = new PreparedStatement(
  (db, { id, slug, ts, name, expected }: { id: string; slug: string; ts: string; name: string | undefined; expected: number | undefined }) => {
    let update = db
      .updateTable('resources')
      .set((eb) => ({ current_version: eb('current_version', '+', 1), updated_ts: ts, ...(name !== undefined ? { name } : {}) }))
      .where('id', '=', id)
      .where('space', '=', slug);
    if (expected !== undefined) update = update.where('current_version', '=', expected);
    return update.returning(['id', 'space', 'kind', 'name', 'current_version', 'created_by', 'created_ts', 'updated_ts']);
  },
);

function subjects(slug: string, id: string): string[] {
  return [`space:${slug}`, `resource:${id}`];
}

export async function createResource(tx: Tx, actor: Actor, slug: string, input: NewResource): Promise<ResourceRecord> {
  checkName(input.name);
  const author = await writableSpace(tx, actor, slug);
  const id = newId('res');
  const kind = input.kind ?? DEFAULT_KIND;
  const ts = tx.now.toISOString();
  const { content } = input;
  await storeBlob(tx, content, ts);
  await tx.db
    .insertInto('resources')
    .values({ id, space: slug, kind, name: input.name, current_version: 1, created_by: author, created_ts: ts, updated_ts: ts })
    .execute();
  await insertVersion(tx, id, 1, input.name, content, author, ts);
  await indexResource(tx, { id, space: slug, name: input.name, mime_type: content.mime_type, author, created_ts: ts, text: content.text });
  tx.emit({
    type: 'resource_created',
    space: slug,
    actor: { handle: author },
    subjects: subjects(slug, id),
    payload: {
      resource_id: id,
      version: 1,
      kind,
      name: input.name,
      mime_type: content.mime_type,
      digest: content.digest,
      byte_length: content.bytes.length,
    },
  });
  return requireResource(tx.db, slug, id);
}

/**
 * Adds a version and selects it. With `expected_version` the UPDATE applies
 * only while `current_version` still equals it: on PostgreSQL a racing update
 * waits for the row and then re-checks the condition against what committed,
 * and SQLite serialises writers, so two updates based on one version never
 * both commit. Without it the number is incremented in place, so concurrent
 * updates all succeed, each with its own version.
 */
export async function addVersion(tx: Tx, actor: Actor, slug: string, id: string, input: NewVersion): Promise<ResourceRecord> {
  if (input.name !== undefined) checkName(input.name);
  const author = await writableSpace(tx, actor, slug);
  const ts = tx.now.toISOString();
  const expected = input.expected_version;
  // An increment even for compare-and-swap, where the WHERE pins the old value:
  // `expected_version + 1` as a parameter could overflow PostgreSQL's 32-bit
  // column and fail the statement before the condition is consulted.
  // The Resource's row as advanced is most of the answer, so neither a lookup
  // first nor a read afterwards is needed: only a refusal asks why (404 or 409).
  const advanced = await ADVANCE.first(tx.db, { id, slug, ts, name: input.name, expected });
  if (!advanced) {
    const current = await requireResource(tx.db, slug, id);
    throw conflict(
      'version_conflict',
      `Resource ${id} is at version ${current.current_version}, not ${expected}: expected_version is stale. Read it again and reapply your change.`,
    );
  }
  const version = Number(advanced.current_version);
  const { content } = input;
  // Nothing below reads the blob, the version row or the document back: they go with the event (storage/together.ts).
  tx.later(STORE_BLOB, blobRow(content, ts));
  tx.later(INSERT_VERSION, versionRow(id, version, advanced.name, content, author, ts));
  await indexResource(tx, { id, space: slug, name: advanced.name, mime_type: content.mime_type, author, created_ts: ts, text: content.text }, { late: true });
  tx.emit({
    type: 'resource_version_added',
    space: slug,
    actor: { handle: author },
    subjects: subjects(slug, id),
    payload: {
      resource_id: id,
      version,
      name: advanced.name,
      mime_type: content.mime_type,
      digest: content.digest,
      byte_length: content.bytes.length,
    },
  });
  return toResourceRecord({ ...advanced, mime_type: content.mime_type, digest: content.digest, byte_length: content.bytes.length, updated_by: author });
}

async function insertVersion(tx: Tx, id: string, version: number, name: string, content: PreparedContent, author: string, ts: string) {
  await INSERT_VERSION.execute(tx.db, versionRow(id, version, name, content, author, ts));
}

function versionRow(id: string, version: number, name: string, content: PreparedContent, author: string, ts: string): Insertable<ResourceVersionTable> {
  return { resource_id: id, version, name, mime_type: content.mime_type, digest: content.digest, byte_length: content.bytes.length, created_by: author, created_ts: ts };
}

/** Read access follows the Space (protocol: Space admission): public for open and request Spaces. */
async function readableSpace(db: Reader, actor: Actor, slug: string): Promise<void> {
  await requireRead(db, actor, await getSpace(db, slug));
}

/**
 * Most recently updated first (protocol: Resources and versions; there is no manual
 * order); ties (one millisecond) by id, so `before` pages without
 * gaps or repeats while nothing changes.
 */
export async function listResources(db: Reader, actor: Actor, slug: string, filters: ListFilters): Promise<ResourceRecord[]> {
  await readableSpace(db, actor, slug);
  let query = resourceQuery(db).where('r.space', '=', slug);
  if (filters.before !== undefined) {
    const anchor = await db
      .selectFrom('resources')
      .select(['id', 'updated_ts'])
      .where('id', '=', filters.before)
      .where('space', '=', slug)
      .executeTakeFirst();
    if (!anchor) throw invalid('unknown_reference', `querystring.before: no Resource ${filters.before} in Space ${slug}`);
    query = query.where((eb) =>
      eb.or([eb('r.updated_ts', '<', anchor.updated_ts), eb.and([eb('r.updated_ts', '=', anchor.updated_ts), eb('r.id', '<', anchor.id)])]),
    );
  }
  const rows = await query
    .orderBy('r.updated_ts', 'desc')
    .orderBy('r.id', 'desc')
    .limit(filters.limit ?? DEFAULT_LIST_LIMIT)
    .execute();
  return rows.map(toResourceRecord);
}

/**
 * A Resource with its current text, for a reader the Space admits. Who may
 * read is decided first, on every request; the document is then what this
 * node keeps for the Space's head, read afresh only when the head moved
 * (kept-documents.ts).
 */
export async function readableResource(
  db: Reader,
  known: { spaces: KnownSpaces; resources: KeptResources },
  actor: Actor,
  slug: string,
  id: string,
): Promise<ResourceAnswer> {
  await requireRead(db, actor, await known.spaces.get(slug));
  return known.resources.read(slug, id, async () => {
    // One snapshot is not needed: the metadata names its version, and that
    // version's text is immutable, so it is read by number.
    const resource = await requireResource(db, slug, id);
    const content = await readResourceBody(db, id, resource.current_version);
    return { ...resource, content: content! };
  });
}

export async function listVersions(db: Reader, actor: Actor, slug: string, id: string, filters: VersionFilters): Promise<ResourceVersionRecord[]> {
  await readableSpace(db, actor, slug);
  await requireResource(db, slug, id);
  let query = db.selectFrom('resource_versions').selectAll().where('resource_id', '=', id);
  if (filters.before !== undefined) query = query.where('version', '<', filters.before);
  const rows = await query
    .orderBy('version', 'desc')
    .limit(filters.limit ?? DEFAULT_LIST_LIMIT)
    .execute();
  return rows.map(toResourceVersionRecord);
}

export async function readableVersion(db: Reader, actor: Actor, slug: string, id: string, version: number): Promise<ResourceVersionDocument> {
  await readableSpace(db, actor, slug);
  await requireResource(db, slug, id);
  const row = await db
    .selectFrom('resource_versions as v')
    .innerJoin('blobs as b', 'b.digest', 'v.digest')
    .select(['v.resource_id', 'v.version', 'v.name', 'v.mime_type', 'v.digest', 'v.byte_length', 'v.created_by', 'v.created_ts', 'b.bytes'])
    .where('v.resource_id', '=', id)
    .where('v.version', '=', version)
    .executeTakeFirst();
  if (!row) throw notFound('resource_version_not_found', `Resource ${id} has no version ${version}`);
  return { ...toResourceVersionRecord(row), content: utf8.decode(row.bytes) };
}
