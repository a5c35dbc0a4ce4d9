import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { client, oneLine, positiveInteger, type CommonOptions } from './command-kit.js';
import { resolveTarget, send, type Schemas } from './api.js';
import { usageError } from './errors.js';
import { printable, printJson, printRecord, printTable, say, time } from './output.js';

type Options = CommonOptions;
type Resource = Schemas['Resource'];
type ResourceVersion = Schemas['ResourceVersion'];

/** `atrium resources …` (docs/resources.md): versioned Markdown Resources over the public API. */
export function registerResources(program: Command): void {
  const resources = program.command('resources').description("list, read, create and update a Space's Markdown Resources");

  client(resources, 'list <slug>', "list a Space's Resources, most recently updated first")
    .option('--before <id>', 'only Resources listed after this one (the last id of the previous page)')
    .option('--limit <n>', 'at most this many (1-500, default 100)', positiveInteger)
    .action(async (slug: string, opts: Options & { before?: string; limit?: number }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.GET('/v0/spaces/{slug}/resources', { params: { path: { slug }, query: { before: opts.before, limit: opts.limit } } }),
      );
      if (opts.json) return printJson(body);
      printTable(
        ['ID', 'VERSION', 'KIND', 'BYTES', 'UPDATED', 'BY', 'NAME'],
        body.resources.map((r) => [r.id, r.current_version, r.kind, r.byte_length, time(r.updated_ts), r.updated_by, oneLine(r.name)]),
        `No Resources in ${slug}.`,
      );
    });

  client(resources, 'get <slug> <id>', 'show a Resource and its Markdown (the current version unless --version)')
    .option('--version <n>', 'show this version instead of the current one', positiveInteger)
    .option('--raw', 'print only the Markdown, exactly as stored (for redirecting to a file)')
    .action(async (slug: string, id: string, opts: Options & { version?: number; raw?: boolean }) => {
      const target = resolveTarget(opts.host);
      const { body } =
        opts.version === undefined
          ? await send(target, (api) => api.GET('/v0/spaces/{slug}/resources/{id}', { params: { path: { slug, id } } }))
          : await send(target, (api) => api.GET('/v0/spaces/{slug}/resources/{id}/versions/{version}', { params: { path: { slug, id, version: opts.version! } } }));
      if (opts.json) return printJson(body);
      const content = body.content ?? '';
      if (opts.raw) {
        // Verbatim into a file or pipe; a terminal still never receives control sequences.
        process.stdout.write(process.stdout.isTTY ? printable(content) : content);
        return;
      }
      printRecord([
        ...('resource_id' in body ? versionFields(body) : resourceFields(body)),
        ['content', printable(content)],
      ]);
    });

  client(resources, 'create <slug> <name> <file>', 'create a Markdown Resource from a file (- reads stdin)')
    .option('--kind <kind>', 'a label fixed at creation (default document)')
    .action(async (slug: string, name: string, file: string, opts: Options & { kind?: string }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/resources', {
          params: { path: { slug } },
          body: { name, content: readMarkdown(file), ...(opts.kind !== undefined ? { kind: opts.kind } : {}) },
        }),
      );
      if (opts.json) return printJson(body);
      say(`Created Resource ${body.id} ("${oneLine(body.name)}") in ${body.space}: version 1, ${body.byte_length} bytes.`);
    });

  client(resources, 'update <slug> <id> <file>', 'add a version from a file (- reads stdin) and make it current')
    .option('--name <name>', 'rename the Resource (the id stays)')
    .option('--expected-version <n>', 'refuse (409) unless the current version is still this one', positiveInteger)
    .action(async (slug: string, id: string, file: string, opts: Options & { name?: string; expectedVersion?: number }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.POST('/v0/spaces/{slug}/resources/{id}/versions', {
          params: { path: { slug, id } },
          body: {
            content: readMarkdown(file),
            ...(opts.name !== undefined ? { name: opts.name } : {}),
            ...(opts.expectedVersion !== undefined ? { expected_version: opts.expectedVersion } : {}),
          },
        }),
      );
      if (opts.json) return printJson(body);
      say(`Resource ${body.id} ("${oneLine(body.name)}") is now at version ${body.current_version}, ${body.byte_length} bytes.`);
    });

  client(resources, 'versions <slug> <id>', "list a Resource's versions, newest first")
    .option('--before <n>', 'only versions older than this one (the next page)', positiveInteger)
    .option('--limit <n>', 'at most this many (1-500, default 100)', positiveInteger)
    .action(async (slug: string, id: string, opts: Options & { before?: number; limit?: number }) => {
      const { body } = await send(resolveTarget(opts.host), (api) =>
        api.GET('/v0/spaces/{slug}/resources/{id}/versions', { params: { path: { slug, id }, query: { before: opts.before, limit: opts.limit } } }),
      );
      if (opts.json) return printJson(body);
      printTable(
        ['VERSION', 'BYTES', 'DIGEST', 'CREATED', 'BY', 'NAME'],
        body.versions.map((v) => [v.version, v.byte_length, shortDigest(v.digest), time(v.created_ts), v.created_by, oneLine(v.name)]),
        `Resource ${id} has no versions.`,
      );
    });
}


function resourceFields(r: Resource): Array<[string, string | number]> {
  return [
    ['id', r.id],
    ['space', r.space],
    ['name', printable(r.name)],
    ['kind', r.kind],
    ['version', r.current_version],
    ['type', r.mime_type],
    ['bytes', r.byte_length],
    ['digest', r.digest],
    ['created', `${time(r.created_ts)} by ${r.created_by}`],
    ['updated', `${time(r.updated_ts)} by ${r.updated_by}`],
  ];
}

function versionFields(v: ResourceVersion): Array<[string, string | number]> {
  return [
    ['id', v.resource_id],
    ['name', printable(v.name)],
    ['version', v.version],
    ['type', v.mime_type],
    ['bytes', v.byte_length],
    ['digest', v.digest],
    ['created', `${time(v.created_ts)} by ${v.created_by}`],
  ];
}

function shortDigest(digest: string): string {
  return digest.slice(0, 'sha256:'.length + 12);
}



const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The file's text, refused when it is not UTF-8: decoding it loosely would
 * upload U+FFFD in place of the bytes, and the server could not tell.
 */
function readMarkdown(path: string): string {
  const where = path === '-' ? 'stdin' : path;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path === '-' ? 0 : path);
  } catch (err) {
    throw usageError(`cannot read ${where}: ${(err as Error).message}`);
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw usageError(`${where} is not UTF-8 text`);
  }
}
