import type { Kysely } from 'kysely';
import { findResource, readResourceBody } from '../resources/service.js';
import type { DatabaseSchema } from '../storage/schema.js';

/** The little pins need to know about Resources, through the Resource service's stable reads. */

export interface PinnableResource {
  id: string;
  name: string;
  current_version: number;
}

/** The Resources among `ids` that belong to the Space, by id; an id of another Space is absent. */
export async function resourcesInSpace(db: Kysely<DatabaseSchema>, slug: string, ids: readonly string[]): Promise<Map<string, PinnableResource>> {
  const found = new Map<string, PinnableResource>();
  // One at a time: inside a transaction every query shares one connection anyway.
  for (const id of new Set(ids)) {
    const r = await findResource(db, slug, id);
    if (r) found.set(r.id, { id: r.id, name: r.name, current_version: r.current_version });
  }
  return found;
}

export interface ResourceBody extends PinnableResource {
  /** The current version's Markdown; undefined when its bytes cannot be found. */
  body: string | undefined;
}

/** The current version of each Resource among `ids` in the Space, with its Markdown. */
export async function currentBodies(db: Kysely<DatabaseSchema>, slug: string, ids: readonly string[]): Promise<Map<string, ResourceBody>> {
  const bodies = new Map<string, ResourceBody>();
  for (const r of (await resourcesInSpace(db, slug, ids)).values()) {
    bodies.set(r.id, { ...r, body: await readResourceBody(db, r.id, r.current_version) });
  }
  return bodies;
}
