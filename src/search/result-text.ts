import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema.js';
import type { ParsedQuery } from './query-language.js';
import type { SearchKind } from './schemas.js';
import { markdownSnippet, matchesEveryClause, snippet, type Snippet } from './snippet.js';

/** What a result shows of its record: its title (tasks and Resources), and the snippet. */
export interface ResultText extends Snippet {
  title: string | null;
}

/**
 * The text each record on a page shows, read from the records themselves
 * (the index holds no text), by record key. A record missing here has no text
 * to show.
 *
 * A record whose title holds every word and phrase of the query was found by
 * its title, and its title is its snippet: its body is not read, so a long
 * Resource found by its name costs no more than a short one. Otherwise the
 * snippet comes from the body's plain text where that matched, else from the
 * title where that did, else from the body's start.
 */
export async function resultTexts(db: Kysely<DatabaseSchema>, rows: Array<{ kind: SearchKind; record_key: string }>, parsed: ParsedQuery): Promise<Map<string, ResultText>> {
  const texts = new Map<string, ResultText>();
  const ids = (kind: SearchKind) => rows.filter((row) => row.kind === kind).map((row) => row.record_key.slice(row.record_key.indexOf(':') + 1));
  const show = (key: string, title: string | null, body: () => string) => {
    texts.set(key, { title, ...(title !== null && matchesEveryClause(title, parsed) ? snippet(title, parsed) : choose(body(), title, parsed)) });
  };
  const messageIds = ids('message').map(Number);
  if (messageIds.length > 0) {
    for (const row of await db.selectFrom('messages').select(['id', 'body']).where('id', 'in', messageIds).execute()) show(`message:${row.id}`, null, () => row.body);
  }
  const taskIds = ids('task').map(Number);
  if (taskIds.length > 0) {
    for (const row of await db.selectFrom('tasks').select(['id', 'title', 'body']).where('id', 'in', taskIds).execute()) show(`task:${row.id}`, row.title, () => row.body);
  }
  const resourceIds = ids('resource');
  if (resourceIds.length > 0) {
    const current = await db
      .selectFrom('resources')
      .innerJoin('resource_versions', (join) => join.onRef('resource_versions.resource_id', '=', 'resources.id').onRef('resource_versions.version', '=', 'resources.current_version'))
      .select(['resources.id', 'resource_versions.name', 'resource_versions.digest'])
      .where('resources.id', 'in', resourceIds)
      .execute();
    // The names first: a Resource found by its name never has its text read.
    const unread = current.filter((row) => !matchesEveryClause(row.name, parsed));
    const digests = [...new Set(unread.map((row) => row.digest))];
    const bytes = new Map<string, Uint8Array>();
    if (digests.length > 0) for (const blob of await db.selectFrom('blobs').select(['digest', 'bytes']).where('digest', 'in', digests).execute()) bytes.set(blob.digest, blob.bytes);
    for (const row of current) {
      const text = bytes.get(row.digest);
      if (unread.includes(row) && text === undefined) continue;
      show(`resource:${row.id}`, row.name, () => Buffer.from(text!).toString('utf8'));
    }
  }
  return texts;
}

function choose(body: string, title: string | null, parsed: ParsedQuery): Snippet {
  const fromBody = body.length > 0 ? markdownSnippet(body, parsed) : null;
  const fromTitle = title !== null ? snippet(title, parsed) : null;
  if (fromBody !== null && (fromBody.highlights.length > 0 || fromTitle === null || fromTitle.highlights.length === 0)) return fromBody;
  return fromTitle ?? { snippet: '', highlights: [] };
}
