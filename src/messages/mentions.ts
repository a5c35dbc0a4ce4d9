import type { Nodes, PhrasingContent, Root } from 'mdast';
import { fromMarkdown, type Transform } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/*
 * Mention candidates of a message body (protocol: Event types, `message_posted`).
 * The rules, and why they are what they are, are in docs/mentions.md.
 *
 * Context comes from the CommonMark + GFM syntax tree, never from a pattern over
 * the source: whether an `@` sits in a code span, a link, an autolink, raw HTML
 * or plain prose is exactly what the parser decides and a regex gets wrong.
 * Inside one block the prose is read the way a reader sees it: emphasis,
 * strong and strikethrough are transparent, code and link text are visible but
 * can never hold a mention, and images, raw HTML tags, hard breaks and
 * footnote markers separate words.
 */

const HANDLE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const HANDLE_MIN = 3;
const HANDLE_MAX = 32;

/*
 * Stands for an `@` that the author escaped (`\@`) or wrote as a character
 * reference (`&#64;`, `&commat;`). It keeps the place of an `@` (so `\@@bob`
 * still reads as `@@bob`) without ever starting a mention. NUL cannot occur in
 * parsed text: CommonMark replaces it, also from `&#0;`, with U+FFFD.
 */
const HIDDEN_AT = '\u0000';

/** Handles mentioned in a message's Markdown, in first-appearance order, deduplicated, lower-cased. */
export function mentionCandidates(markdown: string): string[] {
  let tree: Root;
  try {
    tree = fromMarkdown(markdown, {
      extensions: [gfm()],
      // Runs before GFM's own transform, which splits text nodes into
      // autolinks and leaves the pieces without source positions.
      mdastExtensions: [{ transforms: [hideNonLiteralAts(markdown)] }, gfmFromMarkdown()],
    });
  } catch (error) {
    // The parser recurses per nesting level; a body nested thousands of levels
    // deep (`>>>>…`) exhausts the stack. Such a message still posts; it
    // notifies nobody rather than failing the post.
    if (error instanceof RangeError) return [];
    throw error;
  }

  const found = new Set<string>();
  const pending: Nodes[] = [tree];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.type === 'paragraph' || node.type === 'heading' || node.type === 'tableCell') {
      scanBlock(readBlock(node.children), found);
    } else if ('children' in node) {
      // Code, HTML blocks and definitions have no children: never read.
      pushReversed(pending, node.children);
    }
  }
  return [...found];
}

/*
 * Mention candidates of a body whose Markdown can only be paragraphs of plain
 * prose, found without the parser; undefined when the body may hold anything
 * else (then only mentionCandidates can say). Most messages are such prose,
 * and the parse costs far more than the post around it: it runs on a worker
 * thread (mention-parser.ts), whose round trip costs as much again.
 *
 * The answer is exactly mentionCandidates' (a property test holds the two
 * together), because every construct that could change what the scan sees is
 * refused rather than interpreted:
 *
 * - Block structure: a line that could start anything but a paragraph line
 *   (list, heading, quote, fence, HTML, table, thematic break, setext
 *   underline, indented code, definition) begins, after at most three spaces,
 *   with one of `-+*_#>=|~`<:[` or a digit, or has four spaces or a tab. Left
 *   are paragraphs split by blank lines, each read as its lines joined.
 * - Inline constructs that hide or mark text: escapes, character references,
 *   code spans, links, images, autolinks, raw HTML and strikethrough need one
 *   of `\&`[]<~`, and GFM's literal autolinks need `://`, `www.`, `mailto:`,
 *   `xmpp:` or an `@` right after an address character.
 * - Emphasis is transparent to the scan, which joins the characters on either
 *   side of a delimiter run, while a literal `*` separates them: so no `*` or
 *   `_` may share a word (a run between whitespace) with an `@`.
 */
export function plainMentionCandidates(markdown: string): string[] | undefined {
  // NUL (refused at the edge anyway) is U+FFFD to the parser: never answered here.
  if (markdown.length > PLAIN_MAX || markdown.includes('\u0000') || ACTIVE_ANYWHERE.test(markdown) || AUTOLINK_LITERAL.test(markdown)) return undefined;
  const found = new Set<string>();
  const paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length === 0) return;
    const text = paragraph.join('\n');
    scanBlock({ text, prose: new Array<boolean>(text.length).fill(true) }, found);
    paragraph.length = 0;
  };
  for (const line of markdown.split('\n')) {
    const content = line.replace(/^ {0,3}/, '');
    // Blank means spaces only (CommonMark's blank line), not any Unicode whitespace.
    if (/^ *$/.test(content)) {
      flush();
      continue;
    }
    if (content.startsWith(' ') || BLOCK_START.test(content)) return undefined;
    for (const word of content.split(/\s+/)) if (word.includes('@') && /[*_]/.test(word)) return undefined;
    paragraph.push(content.replace(/ +$/, ''));
  }
  flush();
  return [...found];
}

/** Longer bodies go to the parser's workers: this scan is linear, but runs on the thread that serves everyone. */
const PLAIN_MAX = 4000;
/** Anywhere in a body: characters that start inline constructs other than emphasis, tabs, carriage returns (see plainMentionCandidates). */
const ACTIVE_ANYWHERE = /[\\&`[\]<>~|\t\r]/;
/** GFM's literal autolinks: URLs, and e-mail addresses (an `@` after a character of an address's local part). */
const AUTOLINK_LITERAL = /:\/\/|www\.|mailto:|xmpp:|[A-Za-z0-9._+-]@/i;
/** A line's first character, after at most three spaces, that may start something other than a paragraph line. */
const BLOCK_START = /^[-+*_#>=|~`<:[0-9]/;

/*
 * Marks every `@` in a text node that was not typed as a literal `@`. mdast
 * decodes escapes and character references into the text value, so the only
 * way to tell `\@alice` from `@alice` is to reread the node's own source span.
 * The `@`s of a value and the `@`-producing spellings in its span correspond
 * one to one, in order.
 */
function hideNonLiteralAts(source: string): Transform {
  return (tree) => {
    const pending: Nodes[] = [tree];
    while (pending.length > 0) {
      const node = pending.pop()!;
      if ('children' in node) pushReversed(pending, node.children);
      if (node.type !== 'text' || !node.value.includes('@')) continue;
      const start = node.position?.start.offset;
      const end = node.position?.end.offset;
      const literal = start === undefined || end === undefined ? [] : atSpellings(source.slice(start, end));
      const atCount = node.value.split('@').length - 1;
      let index = 0;
      // Should the spans ever disagree, no `@` of this node notifies: a missed
      // mention is better than one the author did not write.
      const trust = literal.length === atCount;
      node.value = node.value.replace(/@/g, () => (trust && literal[index++] ? '@' : HIDDEN_AT));
    }
  };
}

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const CHARACTER_REFERENCE = /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{0,31}));/y;

/** For each `@` a text span decodes to, in order: was it typed literally? */
function atSpellings(span: string): boolean[] {
  const literal: boolean[] = [];
  for (let i = 0; i < span.length; ) {
    const char = span[i]!;
    if (char === '\\' && ASCII_PUNCTUATION.test(span[i + 1] ?? '')) {
      if (span[i + 1] === '@') literal.push(false);
      i += 2;
      continue;
    }
    if (char === '&') {
      CHARACTER_REFERENCE.lastIndex = i;
      const reference = CHARACTER_REFERENCE.exec(span);
      if (reference) {
        const [whole, hex, decimal, name] = reference;
        const codePoint = hex !== undefined ? parseInt(hex, 16) : decimal !== undefined ? parseInt(decimal, 10) : undefined;
        if (codePoint === 0x40 || name === 'commat') literal.push(false);
        i += whole.length;
        continue;
      }
    }
    if (char === '@') literal.push(true);
    i += 1;
  }
  return literal;
}

/** What the reader sees of one block: its characters, and which of them are plain prose. */
interface BlockText {
  text: string;
  /** Per UTF-16 unit of `text`: true where it is plain prose, the only place a mention can start or run. */
  prose: boolean[];
}

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

function readBlock(children: PhrasingContent[]): BlockText {
  const block: BlockText = { text: '', prose: [] };
  const append = (value: string, prose: boolean) => {
    block.text += value;
    for (let i = 0; i < value.length; i++) block.prose.push(prose);
  };
  // Raw HTML elements opened by inline tags in this block: text between
  // `<span>` and `</span>` is HTML content, not Markdown prose.
  const openElements: string[] = [];
  const pending: { node: PhrasingContent; insideLink: boolean }[] = [];
  const pushChildren = (nodes: PhrasingContent[], insideLink: boolean) => {
    for (let i = nodes.length - 1; i >= 0; i--) pending.push({ node: nodes[i]!, insideLink });
  };
  pushChildren(children, false);

  while (pending.length > 0) {
    const { node, insideLink } = pending.pop()!;
    switch (node.type) {
      case 'text':
        append(node.value, !insideLink && openElements.length === 0);
        break;
      case 'emphasis':
      case 'strong':
      case 'delete':
        pushChildren(node.children, insideLink);
        break;
      case 'link':
      case 'linkReference':
        pushChildren(node.children, true);
        break;
      case 'inlineCode':
        append(node.value, false);
        break;
      case 'html':
        trackElement(node.value, openElements);
        append(' ', true);
        break;
      default:
        // Images, hard breaks, footnote markers and anything newer: not prose,
        // and not text that a handle could run into.
        append(' ', true);
    }
  }
  return block;
}

function trackElement(html: string, openElements: string[]): void {
  const closing = /^<\/([A-Za-z][A-Za-z0-9-]*)/.exec(html);
  if (closing) {
    const at = openElements.lastIndexOf(closing[1]!.toLowerCase());
    if (at >= 0) openElements.length = at;
    return;
  }
  const opening = /^<([A-Za-z][A-Za-z0-9-]*)/.exec(html);
  if (!opening) return; // comments, processing instructions, declarations, CDATA
  const name = opening[1]!.toLowerCase();
  if (!VOID_ELEMENTS.has(name) && !/\/>$/.test(html)) openElements.push(name);
}

const HANDLE_CHAR = /[A-Za-z0-9-]/;
const LETTER_DIGIT_MARK = /[\p{L}\p{N}\p{M}]/u;
// Written without spaces between words, or with particles and honorifics
// attached to names (`请@alice看一下`, `@aliceさん`, `@alice님`).
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** A character that belongs to the same word as its neighbour: e-mail local parts, other names. */
function isWordChar(char: string): boolean {
  return char === '_' || (LETTER_DIGIT_MARK.test(char) && !UNSPACED_SCRIPT.test(char));
}

/** A character that, right before an `@`, makes it part of something else (`bob@x.test`, `a@@b`, `x.test/@bob`). */
function blocksAt(char: string): boolean {
  return isWordChar(char) || '.+-@/'.includes(char) || char === HIDDEN_AT;
}

function scanBlock({ text, prose }: BlockText, found: Set<string>): void {
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    if (!prose[at]) continue;
    const before = codePointBefore(text, at);
    if (before !== undefined && blocksAt(before)) continue;

    let end = at + 1;
    while (end < text.length && prose[end] && HANDLE_CHAR.test(text[end]!)) end++;
    // `@alice-` mentions alice: a hyphen cannot end a handle. (Trimmed by hand:
    // `/-+$/` backtracks quadratically through a long run of hyphens.)
    let last = end;
    while (last > at + 1 && text[last - 1] === '-') last--;
    const handle = text.slice(at + 1, last).toLowerCase();
    if (handle.length < HANDLE_MIN || handle.length > HANDLE_MAX || !HANDLE.test(handle)) continue;
    if (continuesHandle(text, end)) continue;
    found.add(handle);
  }
}

/**
 * Whether the character at `index` makes the name longer than the handle, so
 * that the author wrote some other name (`@alice_b`, `@alice.bob`, `@aliceé`,
 * `@alice@social.test`, `@scope/package`) or a handle that runs on into code or
 * link text.
 */
function continuesHandle(text: string, index: number): boolean {
  const next = codePointAt(text, index);
  if (next === undefined) return false;
  if (HANDLE_CHAR.test(next) || isWordChar(next) || next === '@' || next === HIDDEN_AT) return true;
  if (next === '.' || next === '/') {
    const after = codePointAt(text, index + 1);
    return after !== undefined && (HANDLE_CHAR.test(after) || isWordChar(after));
  }
  return false;
}

function codePointAt(text: string, index: number): string | undefined {
  const codePoint = text.codePointAt(index);
  return codePoint === undefined ? undefined : String.fromCodePoint(codePoint);
}

function codePointBefore(text: string, index: number): string | undefined {
  if (index === 0) return undefined;
  const low = text.charCodeAt(index - 1);
  const high = index >= 2 ? text.charCodeAt(index - 2) : 0;
  const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return codePointAt(text, pair ? index - 2 : index - 1);
}

function pushReversed<T>(stack: T[], items: readonly T[]): void {
  for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!);
}
