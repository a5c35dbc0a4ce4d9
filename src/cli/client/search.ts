import type { Command } from 'commander';
import { resolveTarget, send, type Query, type Schemas } from './api.js';
import { client, oneLine, positiveInteger, type CommonOptions } from './command-kit.js';
import { printable, printJson, say, time } from './output.js';

type SearchResult = Schemas['SearchResult'];
type SearchQuery = Query<'search'>;

interface SearchOptions extends CommonOptions {
  space?: string;
  kind?: SearchQuery['kind'];
  newest?: boolean;
  limit?: number;
  cursor?: string;
}

export function registerSearch(program: Command): void {
  client(program, 'search <query...>', 'find messages, tasks and Resources you may read (words, "phrases", -word, prefix*, from:, in:, kind:, is:dm, before:, after:)')
    .option('--space <slug>', 'only this Space')
    .option('--kind <kind>', 'only message, task or resource')
    .option('--newest', 'newest first instead of most relevant first')
    .option('--limit <n>', 'results per page (1-100, default 20)', positiveInteger)
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed')
    .action(async (words: string[], opts: SearchOptions) => {
      const q = words.join(' ');
      const query: SearchQuery = { q, space: opts.space, kind: opts.kind, sort: opts.newest ? 'newest' : undefined, limit: opts.limit, cursor: opts.cursor };
      const { body } = await send(resolveTarget(opts.host), (api) => api.GET('/v0/search', { params: { query } }));
      if (opts.json) return printJson(body);
      if (body.results.length === 0) return say(opts.cursor ? 'No more results.' : 'Nothing found.');
      const marked = process.stdout.isTTY === true;
      for (const result of body.results) {
        say(`${heading(result)}  ${result.author}  ${time(result.created_ts)}`);
        if (result.title !== undefined) say(`  ${oneLine(result.title)}`);
        // A record found by its title alone has the title for its snippet: no need to print it twice.
        if (result.snippet !== result.title) say(`  ${highlighted(result, marked)}`);
      }
      if (body.next_cursor !== null) say(`More: add --cursor ${body.next_cursor}`);
    });
}

/** Where the result lives, as a person would name it: `garden #general`, `garden task 12`, `garden dm bea+cy`. */
function heading(result: SearchResult): string {
  const where =
    result.channel !== undefined
      ? `#${result.channel}`
      : result.task_id !== undefined
        ? `task ${result.task_id}`
        : result.direct_members !== undefined
          ? `dm ${result.direct_members.join('+')}`
          : `${result.kind} ${result.id}`;
  return `${result.kind === 'message' ? `message ${result.id}` : result.kind}  ${result.space} ${where}`;
}

/**
 * The snippet with its matches in bold at a terminal; plain when piped, so
 * scripts read the words. Highlights count code points, so the text is split
 * into code points before marking, and member-written text is made harmless
 * before our own escape codes go in.
 */
function highlighted(result: SearchResult, marked: boolean): string {
  if (!marked) return oneLine(result.snippet);
  // One code point in, one out, so the offsets still hold: control characters made harmless, line breaks made spaces.
  const chars = Array.from(result.snippet).map((ch) => (/\s/.test(ch) ? ' ' : printable(ch)));
  let out = '';
  let at = 0;
  for (const [start = at, end = start] of result.highlights) {
    out += `${chars.slice(at, start).join('')}\u001b[1m${chars.slice(start, end).join('')}\u001b[22m`;
    at = end;
  }
  return out + chars.slice(at).join('');
}
