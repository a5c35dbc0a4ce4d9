import GithubSlugger from 'github-slugger';
import { toHtml } from 'hast-util-to-html';
import type { Nodes, Parent, PhrasingContent, Root, Text } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toHast } from 'mdast-util-to-hast';
import { toString } from 'mdast-util-to-string';
import { gfm } from 'micromark-extension-gfm';
import { SKIP, visit } from 'unist-util-visit';

export interface RenderedMarkdown {
  /** The text of the first level-1 heading, if there is one. */
  title: string | undefined;
  html: string;
}

/**
 * Where a link or image in the document goes on this site: the URL to use,
 * or `undefined` when the target is not served here (the link is then kept
 * as plain text rather than left dangling).
 */
export type LinkResolver = (url: string) => string | undefined;

/**
 * Renders a guide (GFM) to an HTML fragment. Raw HTML in the source is shown
 * as text, never passed through; headings get GitHub's `id`s, so the anchors
 * people already link to keep working.
 */
export function renderMarkdown(source: string, resolve: LinkResolver): RenderedMarkdown {
  const tree = fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

  visit(tree, 'html', (node, index, parent) => {
    if (!parent || index === undefined) return;
    const text: Text = { type: 'text', value: node.value };
    // Block-level HTML becomes a paragraph of its text; inline HTML stays inline.
    parent.children[index] = (isFlowParent(parent) ? { type: 'paragraph', children: [text] } : text) as never;
  });

  const definitions = new Map<string, string>();
  visit(tree, 'definition', (node) => {
    definitions.set(node.identifier, node.url);
  });
  visit(tree, (node, index, parent) => {
    if (!parent || index === undefined) return;
    let url: string | undefined;
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') url = node.url;
    else if (node.type === 'linkReference' || node.type === 'imageReference') url = definitions.get(node.identifier);
    else return;
    if (url === undefined) return;
    const target = resolve(url);
    if (target !== undefined) {
      if ('url' in node) node.url = target;
      return;
    }
    // References to an unresolved definition were unlinked, so it is never rendered.
    if (node.type === 'definition') return;
    const replacement: PhrasingContent[] =
      node.type === 'image' || node.type === 'imageReference'
        ? node.alt
          ? [{ type: 'text', value: node.alt }]
          : []
        : (node.children as PhrasingContent[]);
    parent.children.splice(index, 1, ...(replacement as never[]));
    return [SKIP, index];
  });
  const slugger = new GithubSlugger();
  let title: string | undefined;
  visit(tree, 'heading', (node) => {
    const text = toString(node);
    if (title === undefined && node.depth === 1) title = text;
    node.data = { ...node.data, hProperties: { ...node.data?.hProperties, id: slugger.slug(text) } };
  });

  return { title, html: toHtml(toHast(tree as Root)) };
}

function isFlowParent(parent: Parent | Nodes): boolean {
  return ['root', 'blockquote', 'listItem', 'footnoteDefinition'].includes(parent.type);
}
