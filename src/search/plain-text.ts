import type { Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/**
 * The text a reader sees in a record's Markdown, which is what a snippet
 * quotes (docs/search.md, "Snippets and highlights"): its syntax gone
 * (`**trellis**` is `trellis`, `## Trellis care` is `Trellis care`), a link by
 * its text and an image by its alternative text, so a link's URL is not shown.
 * Code, and raw HTML (which Atrium shows as typed), keep their text.
 *
 * mdast's own toString runs blocks together (`care` and the next paragraph's
 * `Water` become `careWater`, one word); here each block ends a line, and table
 * cells are set apart, so the words stay the reader's words.
 */
export function markdownPlainText(markdown: string): string {
  // Most messages are written without any: parsing one costs ten times reading its terms.
  if (!SYNTAX.test(markdown)) return markdown;
  // Quotes nested a thousand deep are nobody's writing, and the parser takes
  // time quadratic in the depth to find that out (minutes at 100,000).
  if (DEEP_QUOTES.test(markdown)) return markdown;
  try {
    const tree: Root = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
    return plainText(tree);
  } catch (error) {
    // The parser, and the walk over its tree, recurse per nesting level: a
    // text nested thousands of levels deep exhausts the stack in one or the
    // other (`>` five thousand deep parses, then overflows the walk). Such a
    // text is shown as written.
    if (error instanceof RangeError) return markdown;
    throw error;
  }
}

/** A line whose quote markers nest more than a thousand deep. */
const DEEP_QUOTES = /^[ \t]*(?:>[ \t]*){1000}/m;

/**
 * Every character Markdown's syntax (GFM) is made of, and what starts a list
 * item, a thematic break or a table's delimiter row (`:-` makes the line above
 * a one-column table's header, with no pipe at all). A text holding none of
 * them reads as written, but for whitespace, which a snippet shows as one
 * space anyway.
 */
const SYNTAX = /[*_`~#>|[\]!<&\\=]|^[ \t]*(?:[-+]|:-|\d{1,9}[.)])/m;

/**
 * The plain text of a parsed tree (GFM). `at` hears of each node where its
 * text begins (a string index): the web app finds a snippet's heading with it.
 */
export function plainText(tree: Root, at?: (node: Nodes, offset: number) => void): string {
  const out: string[] = [];
  let length = 0;
  const push = (...parts: string[]) => {
    for (const part of parts) length += part.length;
    out.push(...parts);
  };
  const write = (node: Nodes): void => {
    at?.(node, length);
    writeNode(node, { push }, write);
  };
  write(tree);
  return out.join('');
}

function writeNode(node: Nodes, out: { push(...parts: string[]): void }, write: (node: Nodes) => void): void {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
    case 'html':
      out.push(node.value);
      return;
    case 'code':
      out.push(node.value, '\n');
      return;
    case 'image':
    case 'imageReference':
      out.push(node.alt ?? '');
      return;
    case 'break':
      out.push('\n');
      return;
    // Not shown where they stand: a definition is where a link goes, a
    // footnote reference a mark, a thematic break a line.
    case 'definition':
    case 'footnoteReference':
    case 'thematicBreak':
      return;
    case 'paragraph':
    case 'heading':
      for (const child of node.children) write(child);
      out.push('\n');
      return;
    case 'tableCell':
      for (const child of node.children) write(child);
      out.push(' ');
      return;
    case 'tableRow':
      for (const child of node.children) write(child);
      out.push('\n');
      return;
    default:
      if ('children' in node) for (const child of node.children) write(child as Nodes);
  }
}
