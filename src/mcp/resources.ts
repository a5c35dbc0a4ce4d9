import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type ListResourcesResult, type ReadResourceResult, type Resource, type ResourceTemplateType } from '@modelcontextprotocol/server';
import type { AppContext } from '../app-context.js';
import { actorFor } from '../http/authenticate.js';
import { entryPath, isRepositoryEntry } from '../pins/paths.js';
import type { ResourceRecord } from '../resources/records.js';
import { listResources as listResourcesOperation } from '../resources/operations.js';
import { listResources } from '../resources/service.js';
import { narrowToGrantSpaces } from '../oauth/narrowing.js';
import { AtriumError } from '../shared/errors.js';
import { listSpaces } from '../spaces/service.js';
import { callTool, DETAIL_META, STATUS_META, type ToolCaller } from './call.js';
import type { Toolset } from './tools.js';

/**
 * MCP resources: what a member reads as context, under stable `atrium://`
 * URIs (docs/mcp.md#resources). Each URI is the path of the REST read that
 * serves it, with `atrium:/` in place of `/v0` (a repository file's path
 * moves from the query into the URI):
 *
 *   atrium://spaces/<slug>/resources/<id>                    get_resource
 *   atrium://spaces/<slug>/resources/<id>/versions/<n>       get_resource_version
 *   atrium://spaces/<slug>/front-page                        get_front_page
 *   atrium://spaces/<slug>/repository-files/<path>           get_repository_file
 *
 * A read runs that operation exactly as its tool does, so who may read what is
 * decided in one place, and the text is the tool's, inside the untrusted-content
 * envelope. A listing names records by their identifiers only: names are
 * member-written and `resources/list` has no envelope.
 */

const SCHEME = 'atrium://';
const MIME_TYPE = 'text/plain';

/** Entries per `resources/list` page (a Space's front page and repository files are never split across pages). */
export const RESOURCE_PAGE_SIZE = 100;

export const RESOURCE_TEMPLATES: ResourceTemplateType[] = [
  template('spaces/{slug}/resources/{id}', 'resource', "A Markdown Resource's current version (get_resource)."),
  template('spaces/{slug}/resources/{id}/versions/{version}', 'resource_version', 'One version of a Markdown Resource (get_resource_version).'),
  template('spaces/{slug}/front-page', 'front_page', "A Space's front page: its pinned content in pin order (get_front_page)."),
  template('spaces/{slug}/repository-files/{+path}', 'repository_file', 'A Markdown file on the host repository\'s main branch, pinned in the Space (get_repository_file).'),
];

function template(path: string, name: string, description: string): ResourceTemplateType {
  return { uriTemplate: `${SCHEME}${path}`, name, description, mimeType: MIME_TYPE };
}

/** The operation (as its tool) and arguments an `atrium://` URI stands for. */
interface ResourceRead {
  tool: string;
  args: Record<string, unknown>;
}

const SEGMENT = '([^/?#]+)';
const ROUTES: Array<[RegExp, (m: string[]) => ResourceRead]> = [
  [new RegExp(`^spaces/${SEGMENT}/resources/${SEGMENT}$`), ([slug, id]) => ({ tool: 'get_resource', args: { slug, id } })],
  [
    new RegExp(`^spaces/${SEGMENT}/resources/${SEGMENT}/versions/([0-9]{1,15})$`),
    ([slug, id, version]) => ({ tool: 'get_resource_version', args: { slug, id, version: Number(version) } }),
  ],
  [new RegExp(`^spaces/${SEGMENT}/front-page$`), ([slug]) => ({ tool: 'get_front_page', args: { slug } })],
  [new RegExp(`^spaces/${SEGMENT}/repository-files/([^?#]+)$`), ([slug, path]) => ({ tool: 'get_repository_file', args: { slug, path } })],
];

export function resourceUri(slug: string, ...segments: string[]): string {
  return `${SCHEME}spaces/${encodeURIComponent(slug)}/${segments.join('/')}`;
}

function repositoryFileUri(slug: string, path: string): string {
  return resourceUri(slug, 'repository-files', ...path.split('/').map(encodeURIComponent));
}

function parseUri(uri: string): ResourceRead | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  const rest = uri.slice(SCHEME.length);
  for (const [pattern, read] of ROUTES) {
    const m = pattern.exec(rest);
    if (!m) continue;
    try {
      return read(m.slice(1).map((part) => decodeURIComponent(part)));
    } catch {
      return undefined; // malformed percent-encoding
    }
  }
  return undefined;
}

/**
 * `resources/read`: the URI's operation, called as its tool. A refusal is a
 * JSON-RPC error whose message is the tool error's `<status> <detail>`. A
 * record that is not there (404) is MCP's "resource not found" (`-32602`
 * with `data: {uri}`); any other refusal is `-32602` with the status and
 * detail in `data` too, and a failure of Atrium's own `-32603`.
 */
export async function readResource(uri: string, toolset: Toolset, caller: ToolCaller, ctx: AppContext): Promise<ReadResourceResult> {
  const read = parseUri(uri);
  if (!read) throw new ResourceNotFoundError(uri, `404 not an Atrium resource URI: ${uri} (see resources/templates/list)`);
  const bound = toolset.byName.get(read.tool)!;
  const result = await callTool(bound, read.args, caller, ctx);
  const meta = result._meta as Record<string, unknown>;
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  if (result.isError) {
    const status = meta[STATUS_META] as number;
    if (status === 404) throw new ResourceNotFoundError(uri, text);
    throw new ProtocolError(status >= 500 ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams, text, {
      uri,
      [STATUS_META]: status,
      [DETAIL_META]: meta[DETAIL_META],
    });
  }
  return { contents: [{ uri, mimeType: MIME_TYPE, text, _meta: { [STATUS_META]: meta[STATUS_META] } }] };
}

interface Cursor {
  /** The Space the page resumes in (Spaces are listed by slug). */
  space: string;
  /**
   * Absent: the Space starts afresh, front page first. Null: its front page
   * and repository files are listed, its Resources not yet. Otherwise the
   * last Resource listed.
   */
  after?: string | null;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(raw: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof value.space === 'string' && (value.after === undefined || value.after === null || typeof value.after === 'string')) return value as Cursor;
  } catch {
    // refused below
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'invalid cursor: pass the nextCursor of the previous resources/list page as it came');
}

/**
 * `resources/list`: every Space the caller may read, by slug, each with its
 * front page, its pinned repository files and its Resources (most recently
 * updated first, as `list_resources` pages them). Readability is the REST
 * read's own: a Space whose Resources `list_resources` refuses is left out.
 */
export async function listResourcePage(rawCursor: string | undefined, caller: ToolCaller, ctx: AppContext): Promise<ListResourcesResult> {
  const cursor = rawCursor === undefined ? undefined : decodeCursor(rawCursor);
  const db = ctx.db.kysely;
  const actor = actorFor(listResourcesOperation, caller.member, ctx, 'mcp');
  const spaces = (await listSpaces(db, actor)).sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const resources: Resource[] = [];
  for (const space of spaces) {
    if (cursor && space.slug < cursor.space) continue;
    if (resources.length >= RESOURCE_PAGE_SIZE) return { resources, nextCursor: encodeCursor({ space: space.slug }) };
    const after = cursor?.space === space.slug ? cursor.after : undefined;
    let page: ResourceRecord[];
    try {
      // One more than fits tells whether the Space goes on after this page.
      // A grant narrowed to other Spaces lists there only what is public, as its reads do.
      page = await listResources(db, narrowToGrantSpaces(listResourcesOperation, actor, { slug: space.slug }), space.slug, { ...(typeof after === 'string' ? { before: after } : {}), limit: RESOURCE_PAGE_SIZE - resources.length + 1 });
    } catch (err) {
      if (err instanceof AtriumError && err.status < 500) continue;
      throw err;
    }
    if (after === undefined) {
      const fixed = [resourceEntry(resourceUri(space.slug, 'front-page'), `${space.slug}/front-page`, `The front page of Space ${space.slug}.`)];
      if (ctx.config.repositoryPath !== undefined) {
        for (const path of space.pinned_resources.filter(isRepositoryEntry).map(entryPath)) {
          fixed.push(resourceEntry(repositoryFileUri(space.slug, path), `${space.slug}/repository-files/${path}`, `A repository file pinned in Space ${space.slug}.`));
        }
      }
      if (resources.length > 0 && resources.length + fixed.length > RESOURCE_PAGE_SIZE) return { resources, nextCursor: encodeCursor({ space: space.slug }) };
      resources.push(...fixed);
    }
    const fits = Math.max(0, RESOURCE_PAGE_SIZE - resources.length);
    for (const record of page.slice(0, fits)) {
      resources.push(
        resourceEntry(
          resourceUri(space.slug, 'resources', encodeURIComponent(record.id)),
          `${space.slug}/resources/${record.id}`,
          `Markdown Resource ${record.id} in Space ${space.slug}, at version ${record.current_version}; earlier versions under .../versions/<n>.`,
        ),
      );
    }
    if (page.length > fits) {
      const last = fits > 0 ? page[fits - 1]!.id : (after ?? null);
      return { resources, nextCursor: encodeCursor({ space: space.slug, after: last }) };
    }
  }
  return { resources };
}

function resourceEntry(uri: string, name: string, description: string): Resource {
  return { uri, name, description, mimeType: MIME_TYPE };
}
