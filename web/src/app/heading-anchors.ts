import GithubSlugger from 'github-slugger';
import type { Heading, Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toString } from 'mdast-util-to-string';
import { gfm } from 'micromark-extension-gfm';
import { visit } from 'unist-util-visit';
import { plainText } from '../../../src/search/plain-text';

// Anchors for a document's headings: GitHub's slugs of their text (repeats
// numbered `-1`, `-2`…), so an address like `…#planting-notes` means what
// people expect. They carry a prefix because the text is member-written: a
// heading called "Main" must not take the id of the page's own <main>, which
// the skip link and the app's labels point at.

export const HEADING_ID_PREFIX = 'section-';

/** Each heading of the tree in document order, with the id it is given. */
export function headingIds(tree: Root): Array<{ heading: Heading; id: string }> {
  const slugger = new GithubSlugger();
  const found: Array<{ heading: Heading; id: string }> = [];
  visit(tree, 'heading', (heading) => {
    found.push({ heading, id: HEADING_ID_PREFIX + slugger.slug(toString(heading)) });
  });
  return found;
}

/**
 * A remark plugin giving every heading its anchor id. It reads the same tree
 * react-markdown renders, so the ids are the ones `headingOfMatch` finds.
 */
export function remarkHeadingIds() {
  return (tree: Root) => {
    for (const { heading, id } of headingIds(tree)) {
      heading.data = { ...heading.data, hProperties: { ...heading.data?.hProperties, id } };
    }
  };
}

/**
 * The anchor of the nearest heading at or before a search match in `source`,
 * parsed as the Resource page parses it (GFM), so a `#` inside a code block is
 * no heading. A search snippet quotes the Markdown's plain text, read by the
 * server's own rule (`plainText`): `find` places the match in that text (a
 * string index), or answers null. Null too before the first heading.
 */
export function headingOfMatch(source: string, find: (plain: string) => number | null): string | null {
  const tree = fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const starts = new Map<Nodes, number>();
  const offset = find(plainText(tree, (node, at) => void (node.type === 'heading' && starts.set(node, at))));
  if (offset === null) return null;
  let anchor: string | null = null;
  for (const { heading, id } of headingIds(tree)) {
    const start = starts.get(heading);
    if (start === undefined || start > offset) break;
    anchor = id;
  }
  return anchor;
}
