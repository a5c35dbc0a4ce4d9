import type { Kysely } from 'kysely';
import type { Actor } from '../identity/actor.js';
import { eventActor, isOwnerOrHost, requireOwnerOrHost } from '../roles/authority.js';
import { conflict, forbidden, invalid, notFound, unauthenticated } from '../shared/errors.js';
import { PROTOCOL } from '../shared/protocol.js';
import { requireRead } from '../spaces/admission.js';
import { toSpaceRecord, type SpaceRecord } from '../spaces/records.js';
import { getSpace } from '../spaces/service.js';
import type { Tx } from '../storage/database.js';
import type { DatabaseSchema } from '../storage/schema.js';
import { requirePinAppender } from './authority.js';
import { checkRepositoryPath, entryPath, isRepositoryEntry, printable, repositoryEntry, repositoryPathProblem } from './paths.js';
import { readMainFiles, type MainSnapshot, type RepositoryFileState } from './repository.js';
import { currentBodies, resourcesInSpace } from './resources.js';
import { MAX_PINS, type AppendPinInput, type FrontPage, type FrontPagePin, type RepositoryFile, type SetPinsInput } from './schemas.js';

/**
 * Pins (docs/protocol.md#pins-and-the-front-page): the ordered list of at
 * most five entries on a Space's front page, kept as JSON in
 * `spaces.pinned_resources`. Every change reads and writes that column under a
 * lock on the Space row (PostgreSQL; SQLite serialises writers), so two
 * concurrent appends both land and each event's `previous_resource_ids` is the
 * list it actually replaced.
 */

/**
 * What the host repository said about the repository paths of a request, read
 * before the transaction opens so no git process runs while the Space row is
 * locked. `configured: false` when ATRIUM_REPOSITORY_PATH is unset.
 */
export type RepositoryView = { configured: false } | { configured: true; snapshot: MainSnapshot };

/** Reads `main` for the well-formed repository entries of a request; malformed ones are refused later, in order. */
export async function viewRepository(repositoryPath: string | undefined, entries: readonly string[]): Promise<RepositoryView> {
  if (repositoryPath === undefined) return { configured: false };
  const paths = entries.filter(isRepositoryEntry).map(entryPath).filter((p) => repositoryPathProblem(p) === undefined);
  if (paths.length === 0) return { configured: true, snapshot: { commit: null, files: new Map() } };
  return { configured: true, snapshot: await readMainFiles(repositoryPath, paths) };
}

/**
 * The Space row for a read-modify-write of its pins, held until commit on
 * PostgreSQL. `FOR NO KEY UPDATE` is the lock the UPDATE takes itself; unlike
 * `FOR UPDATE` it does not block inserts that merely reference the Space.
 */
export async function lockSpace(tx: Tx, slug: string): Promise<SpaceRecord> {
  const query = tx.db.selectFrom('spaces').selectAll().where('slug', '=', slug);
  const row = await (tx.dialect === 'postgres' ? query.forNoKeyUpdate() : query).executeTakeFirst();
  if (!row) throw notFound('space_not_found', `no such Space: ${slug}`);
  return toSpaceRecord(row);
}

/** Pins change only in `active` Spaces; archived ones are read-only (protocol: Space status). */
export function requirePinnable(space: SpaceRecord): void {
  if (space.status !== 'active') throw conflict('space_not_active', `Space ${space.slug} is ${space.status}: pins change only in an active Space`);
}

/** `POST …/pins`: replaces the whole list (Owner/Host). Kept entries are not re-checked: a missing repository pin may stay. */
export async function setPins(tx: Tx, actor: Actor, slug: string, input: SetPinsInput, repository: RepositoryView): Promise<SpaceRecord> {
  const space = await lockSpace(tx, slug);
  await requireOwnerOrHost(tx.db, actor, { space: slug });
  requirePinnable(space);
  const next = input.resource_ids;
  if (next.length > MAX_PINS) throw invalid('validation_failed', `body.resource_ids: at most ${MAX_PINS} pins, got ${next.length}`);
  const repeated = next.find((entry, i) => next.indexOf(entry) !== i);
  if (repeated !== undefined) throw invalid('validation_failed', `body.resource_ids: ${printable(repeated)} appears more than once`);
  const previous = space.pinned_resources;
  if (sameList(previous, next)) return space;

  const added = next.map((entry, index) => ({ entry, index })).filter(({ entry }) => !previous.includes(entry));
  const resources = await resourcesInSpace(
    tx.db,
    slug,
    added.filter(({ entry }) => !isRepositoryEntry(entry)).map(({ entry }) => entry),
  );
  for (const { entry, index } of added) {
    const where = `body.resource_ids[${index}]`;
    if (isRepositoryEntry(entry)) checkNewRepositoryPin(entryPath(entry), where, repository);
    else if (!resources.has(entry)) throw invalid('unknown_reference', `${where}: no Resource ${printable(entry)} in Space ${slug}`);
  }
  return writePins(tx, actor, space, next, input.reason ?? '');
}

/** A new repository pin must name a UTF-8 `.md` file that exists on `main` now (protocol: Pins and the front page). */
function checkNewRepositoryPin(path: string, where: string, repository: RepositoryView): void {
  checkRepositoryPath(path, where);
  if (!repository.configured) throw invalid('repository_unavailable', `${where}: repository pins are not available on this host (ATRIUM_REPOSITORY_PATH is not set)`);
  if (repository.snapshot.commit === null) throw invalid('repository_unavailable', `${where}: the host repository has no readable main branch`);
  const state = repository.snapshot.files.get(path) ?? { state: 'missing' };
  if (state.state !== 'text') throw invalid('validation_failed', `${where}: ${printable(path)} ${unreadable(state)} on main`);
}

function unreadable(state: Exclude<RepositoryFileState, { state: 'text' }>): string {
  switch (state.state) {
    case 'missing':
      return 'does not exist';
    case 'not_file':
      return 'is not a regular file';
    case 'not_text':
      return `${state.why}: only NUL-free UTF-8 text can be pinned`;
  }
}

/**
 * `POST …/pins/append` (protocol: Pins and the front page): one Resource of this Space at the
 * end. Already pinned is a no-op even when the list is full; a full list is a
 * 409 and evicts nothing.
 */
export async function appendPin(tx: Tx, actor: Actor, slug: string, input: AppendPinInput): Promise<SpaceRecord> {
  const space = await lockSpace(tx, slug);
  await requirePinAppender(tx.db, actor, space);
  requirePinnable(space);
  const id = input.resource_id;
  if (isRepositoryEntry(id)) {
    throw invalid('validation_failed', 'body.resource_id: append takes a Resource of this Space, never a repository path; an Owner/Host sets repository pins with POST …/pins');
  }
  if (!(await resourcesInSpace(tx.db, slug, [id])).has(id)) throw invalid('unknown_reference', `body.resource_id: no Resource ${printable(id)} in Space ${slug}`);
  return appendResource(tx, actor, space, id, input.reason ?? '');
}

/** Appends under the lock the caller already holds; shared by append and an accepted proposal. */
export async function appendResource(tx: Tx, actor: Actor, space: SpaceRecord, id: string, reason: string, proposal?: number): Promise<SpaceRecord> {
  const previous = space.pinned_resources;
  if (previous.includes(id)) return space;
  if (previous.length >= MAX_PINS) {
    throw conflict('pin_limit_reached', `Space ${space.slug} already has ${MAX_PINS} pins: an Owner/Host must unpin one first (nothing was evicted)`);
  }
  return writePins(tx, actor, space, [...previous, id], reason, proposal);
}

async function writePins(tx: Tx, actor: Actor, space: SpaceRecord, next: string[], reason: string, proposal?: number): Promise<SpaceRecord> {
  const previous = space.pinned_resources;
  await tx.db
    .updateTable('spaces')
    .set({ pinned_resources: JSON.stringify(next), updated_ts: tx.now.toISOString() })
    .where('slug', '=', space.slug)
    .execute();
  const changed = [...previous.filter((e) => !next.includes(e)), ...next.filter((e) => !previous.includes(e))].filter((e) => !isRepositoryEntry(e));
  tx.emit({
    type: 'space_pins_updated',
    space: space.slug,
    actor: eventActor(actor),
    subjects: [`space:${space.slug}`, ...changed.map((id) => `resource:${id}`)],
    payload: {
      slug: space.slug,
      previous_resource_ids: previous,
      resource_ids: next,
      reason,
      ...(proposal !== undefined ? { pin_proposal: proposal } : {}),
    },
  });
  return getSpace(tx.db, space.slug);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry === b[i]);
}

/** `GET …/front-page` (protocol: Pins and the front page): the pinned content in pin order; follows read access. */
export async function frontPage(db: Kysely<DatabaseSchema>, actor: Actor, slug: string, repositoryPath: string | undefined): Promise<FrontPage> {
  const space = await getSpace(db, slug);
  await requireRead(db, actor, space);
  const entries = space.pinned_resources;
  const resources = await currentBodies(db, slug, entries.filter((e) => !isRepositoryEntry(e)));
  const paths = entries.filter(isRepositoryEntry).map(entryPath);
  const snapshot: MainSnapshot | undefined = repositoryPath !== undefined && paths.length > 0 ? await readMainFiles(repositoryPath, paths) : undefined;
  const pins = entries.map((entry): FrontPagePin => {
    if (isRepositoryEntry(entry)) {
      const path = entryPath(entry);
      const file = snapshot?.files.get(path);
      const text = file?.state === 'text' ? file.text : null;
      return { id: entry, kind: 'repository', name: path, missing: text === null, body: text, version: null, commit: snapshot?.commit ?? null };
    }
    const resource = resources.get(entry);
    const body = resource?.body ?? null;
    return {
      id: entry,
      kind: 'resource',
      name: resource?.name ?? entry,
      missing: body === null,
      body,
      version: body === null ? null : (resource?.current_version ?? null),
      commit: null,
    };
  });
  return { space: slug, pins, protocol: PROTOCOL };
}

/**
 * `GET …/repository-files?path=` (MCP `get_repository_file`): a file pinned in
 * the Space, for anyone who may read the Space; any `.md` file on `main`, for
 * the Space's Owner/Host (who may pin it, and so must be able to look first).
 */
export async function readRepositoryFile(
  db: Kysely<DatabaseSchema>,
  actor: Actor,
  slug: string,
  path: string,
  repositoryPath: string | undefined,
): Promise<RepositoryFile> {
  const space = await getSpace(db, slug);
  await requireRead(db, actor, space);
  checkRepositoryPath(path, 'querystring.path');
  if (repositoryPath === undefined) throw invalid('repository_unavailable', 'repository files are not available on this host (ATRIUM_REPOSITORY_PATH is not set)');
  if (!space.pinned_resources.includes(repositoryEntry(path)) && !(await isOwnerOrHost(db, actor, { space: slug }))) {
    const detail = `${printable(path)} is not pinned in Space ${slug}: only an Owner/Host (signed-in session) may read unpinned repository files`;
    throw actor.kind === 'anonymous' ? unauthenticated('credential_required', detail) : forbidden('repository_file_forbidden', detail);
  }
  const snapshot = await readMainFiles(repositoryPath, [path]);
  if (snapshot.commit === null) throw notFound('repository_file_not_found', 'the host repository has no readable main branch');
  const file = snapshot.files.get(path) ?? { state: 'missing' };
  if (file.state !== 'text') throw notFound('repository_file_not_found', `${printable(path)} ${unreadable(file)} on main`);
  return { space: slug, path, commit: snapshot.commit, byte_length: file.byteLength, body: file.text };
}
