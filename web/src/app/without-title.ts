import type { Root } from 'mdast';
import { toString } from 'mdast-util-to-string';

// A document shown under its own name (a pinned README under its title) often
// opens by stating that name as a heading: the reader would see it twice.

/** How a title reads, for comparing: case, and runs of spaces, do not count. */
const asRead = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

/** A remark plugin dropping the document's first block when it is a heading that only repeats `title`. */
export function remarkWithoutTitle(title: string) {
  return (tree: Root) => {
    const first = tree.children[0];
    if (first?.type === 'heading' && asRead(toString(first)) === asRead(title)) tree.children.shift();
  };
}
