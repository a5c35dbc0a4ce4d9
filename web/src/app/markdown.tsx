import Markdown, { defaultUrlTransform, type Components, type Options } from 'react-markdown';
import { createElement, useMemo, type ReactNode } from 'react';
import remarkGfm from 'remark-gfm';
import { remarkHeadingIds } from './heading-anchors';
import { remarkWithoutTitle } from './without-title';

// Space content is written by members, people and agents alike, and is shown
// to everyone who reads the Space: it is data, never markup we trust.
// react-markdown builds React elements (never innerHTML) and drops raw HTML in
// the source; its URL filter allows only http(s), mailto and relative links,
// so `javascript:` and `data:` never become a link. Images are not loaded:
// an image's address is a beacon that tells its owner who read the Space and
// when, so it is shown as a link the reader may choose to follow. Headings
// move down: the page's own title is its only <h1>, so a document's `# Title`
// sits under the page's headings in the outline instead of competing with them.

/**
 * A heading one level down. The one a link led to (`target`, its anchor id) is
 * marked and may take focus, so a keyboard or screen-reader user lands there too.
 */
const heading =
  (level: number, shift: number, target: string | null) =>
  ({ children, id }: { children?: ReactNode; id?: string }) =>
    createElement(
      `h${Math.min(level + shift, 6)}`,
      id !== undefined && id === target ? { id, className: 'targeted', tabIndex: -1 } : { id },
      children,
    );

const headings = (shift: number, target: string | null): Components =>
  Object.fromEntries([1, 2, 3, 4, 5, 6].map((level) => [`h${level}`, heading(level, shift, target)]));

const components: Components = {
  img: ({ src, alt }) =>
    typeof src === 'string' && src !== '' ? (
      <a href={src} rel="noreferrer noopener nofollow" target="_blank" className="md-image-link">
        {`image: ${alt || src}`}
      </a>
    ) : (
      <span>{alt}</span>
    ),
  // A link the URL filter refused (`javascript:`, `data:`) arrives with an empty address: it is
  // its text alone, as an anchor to "" would be a link to this very page.
  a: ({ href, children }) =>
    href === undefined || href === '' ? (
      <>{children}</>
    ) : leavesTheSite(href) ? (
      <a href={href} rel="noreferrer noopener nofollow" target="_blank">
        {children}
      </a>
    ) : (
      <a href={href}>{children}</a>
    ),
};

/**
 * Whether a link leaves this site: it names a scheme, or the browser resolves
 * it to another origin, as it does `//host/p`, which names no scheme. The
 * browser's own URL parser decides, not a prefix test, so every spelling it
 * reads as another host (`/\host`, a tab inside the slashes) counts too. Such
 * a link opens in a new tab and gives the other site neither a referrer nor a
 * handle on this page.
 */
function leavesTheSite(href: string | undefined): boolean {
  if (typeof href !== 'string') return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return true;
  try {
    return new URL(href, window.location.href).origin !== window.location.origin;
  } catch {
    return true;
  }
}

type RemarkPlugin = NonNullable<Options['remarkPlugins']>[number];

/**
 * Renders member-written GFM safely (see above). `remarkPlugins` run after
 * GFM on the Markdown tree (a page marking mentions, say); the safety settings
 * above still apply to whatever they produce.
 */
export function RenderedMarkdown({
  source,
  className,
  remarkPlugins = [],
  topHeading = 2,
  anchors = false,
  target = null,
  title,
}: {
  source: string;
  className?: string;
  remarkPlugins?: Options['remarkPlugins'];
  /** The level a document's `#` heading becomes: one below the heading the document is shown under. */
  topHeading?: 2 | 3 | 4;
  /** Give headings ids (app/heading-anchors.ts), for a document that is the page, so links may point into it. */
  anchors?: boolean;
  /** The heading id the address points at, to mark it. */
  target?: string | null;
  /** The title the page already shows above the document: a first heading that only repeats it is left out. */
  title?: string;
}) {
  const marked = anchors ? target : null;
  // The same components from one render to the next: new ones would be new element types, and
  // React would replace every heading, taking focus away from the one a link landed on.
  const parts = useMemo<Components>(() => ({ ...components, ...headings(topHeading - 1, marked) }), [topHeading, marked]);
  return (
    <div className={className ? `markdown ${className}` : 'markdown'}>
      <Markdown
        remarkPlugins={[
          remarkGfm,
          ...(title !== undefined ? [[remarkWithoutTitle, title] satisfies RemarkPlugin] : []),
          ...(remarkPlugins ?? []),
          ...(anchors ? [remarkHeadingIds] : []),
        ]}
        skipHtml
        components={parts}
        urlTransform={defaultUrlTransform}
      >
        {source}
      </Markdown>
    </div>
  );
}
