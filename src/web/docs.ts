import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { toHtml } from 'hast-util-to-html';
import { ERROR_CODE_HEADER } from '../shared/error-catalogue.js';
import { renderMarkdown, type LinkResolver } from './markdown.js';

/** The guides (docs/*.md), from the package root like web/dist. */
export const DEFAULT_DOCS_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));

/** The documentation pages' own stylesheet and Swagger UI's start-up script. */
const ASSETS_DIR = fileURLToPath(new URL('../../web/docs/', import.meta.url));

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_VERSION = (JSON.parse(readFileSync(join(SWAGGER_UI_DIR, 'package.json'), 'utf8')) as { version: string }).version;
/** Versioned by its path, so a release of Swagger UI is a new address and the old one never changes. */
const SWAGGER_UI_PREFIX = `/docs/assets/swagger-ui-${SWAGGER_UI_VERSION}/`;
/** The only files of the package the page loads (and their source maps, for the browser's developer tools). */
const SWAGGER_UI_FILES = new Set(['swagger-ui-bundle.js', 'swagger-ui-bundle.js.map', 'swagger-ui.css', 'swagger-ui.css.map']);

/** Names under /docs that are not guides. */
const RESERVED = new Set(['assets', 'guides']);

const FRAME_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/**
 * The reference runs Swagger UI's bundle and this host's start-up script, and
 * fetches only the contract. Swagger UI sets styles through the DOM (allowed)
 * and its stylesheet's icons are `data:` images; it needs no inline script or
 * style, no eval and no workers.
 */
const REFERENCE_HEADERS: Record<string, string> = {
  ...FRAME_HEADERS,
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

/** A guide is static HTML: no script at all. */
const GUIDE_HEADERS: Record<string, string> = {
  ...FRAME_HEADERS,
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

interface Guide {
  name: string;
  title: string;
  html: string;
}

export interface DocsOptions {
  /** Where the guides are read from (tests point this at a fixture). */
  docsDir?: string;
}

/**
 * The documentation at /docs, outside the API contract: the API reference
 * rendered in the browser from this host's /v0/openapi.json by Swagger UI,
 * served from the installed package (nothing is fetched from anywhere else),
 * and the guides, docs/<name>.md rendered to /docs/<name>.
 */
export async function registerDocs(app: FastifyInstance, opts: DocsOptions = {}): Promise<void> {
  const guides = new Guides(opts.docsDir ?? DEFAULT_DOCS_DIR);
  const referencePage = referenceHtml(guides);

  await app.register(async (scope) => {
    // Each of these only serves under its prefix; `sendFile` stays the web app's decoration.
    await scope.register(fastifyStatic, {
      root: SWAGGER_UI_DIR,
      prefix: SWAGGER_UI_PREFIX,
      decorateReply: false,
      index: false,
      dotfiles: 'ignore',
      allowedPath: (path) => SWAGGER_UI_FILES.has(path.slice(1)),
      maxAge: '365d',
      immutable: true,
      setHeaders: (res) => res.setHeader('x-content-type-options', 'nosniff'),
    });
    await scope.register(fastifyStatic, {
      root: ASSETS_DIR,
      prefix: '/docs/assets/',
      decorateReply: false,
      index: false,
      dotfiles: 'ignore',
      // Not versioned: revalidated (ETag) on every load.
      cacheControl: false,
      setHeaders: (res) => {
        res.setHeader('cache-control', 'no-cache');
        res.setHeader('x-content-type-options', 'nosniff');
      },
    });
  });

  const sendReference = (_: unknown, reply: FastifyReply) => html(reply, REFERENCE_HEADERS, referencePage);
  app.get('/docs', { schema: { hide: true } }, sendReference);
  app.get('/docs/', { schema: { hide: true } }, sendReference);

  app.get('/docs/guides', { schema: { hide: true } }, (_, reply) => html(reply, GUIDE_HEADERS, indexHtml(guides)));

  app.get<{ Params: { name: string } }>('/docs/:name', { schema: { hide: true } }, (request, reply) => {
    const guide = guides.get(request.params.name);
    if (!guide) return reply.code(404).header(ERROR_CODE_HEADER, 'document_not_found').send({ detail: `no document named ${request.params.name}` });
    return html(reply, GUIDE_HEADERS, guideHtml(guide, guides));
  });
}

function html(reply: FastifyReply, headers: Record<string, string>, body: string): FastifyReply {
  // Small pages, fetched again on every load: a restart with new guides or a new Swagger UI shows at once.
  return reply.headers(headers).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(body);
}

/**
 * The guides, docs/<name>.md: read at start (a missing directory is no
 * guides, not a failure) and each rendered on its first request, as rendering
 * them all would add about a second to every start.
 */
class Guides {
  private readonly sources = new Map<string, string>();
  private readonly rendered = new Map<string, Guide>();

  constructor(dir: string) {
    if (!existsSync(dir)) return;
    for (const file of readdirSync(dir).sort()) {
      const match = /^([a-z0-9][a-z0-9-]*)\.md$/.exec(file);
      if (match && !RESERVED.has(match[1]!)) this.sources.set(match[1]!, readFileSync(join(dir, file), 'utf8'));
    }
  }

  has(name: string): boolean {
    return this.sources.has(name);
  }

  get(name: string): Guide | undefined {
    const source = this.sources.get(name);
    if (source === undefined) return undefined;
    let guide = this.rendered.get(name);
    if (!guide) {
      const rendered = renderMarkdown(source, this.resolve);
      guide = { name, title: rendered.title ?? name, html: rendered.html };
      this.rendered.set(name, guide);
    }
    return guide;
  }

  all(): Guide[] {
    return [...this.sources.keys()].map((name) => this.get(name)!);
  }

  private readonly resolve: LinkResolver = (url) => {
    if (/^(https?|mailto):/i.test(url) || url.startsWith('#')) return url;
    // A path on this site. Browsers drop tabs and newlines from a URL and read `\` as `/`, so `/\host` is `//host`: another site.
    if (/^\/(?![/\\])/.test(url.replace(/[\t\n\r]/g, ''))) return url;
    // Between guides, as they link on a forge: `tasks.md#states` is /docs/tasks#states here.
    const guide = /^(?:\.\/)?([a-z0-9][a-z0-9-]*)\.md(#.*)?$/.exec(url);
    if (guide && this.sources.has(guide[1]!)) return `/docs/${guide[1]}${guide[2] ?? ''}`;
    // Sources and other files of the repository are not served; other schemes are not followed.
    return undefined;
  };
}

function text(value: string): string {
  return toHtml({ type: 'text', value });
}

function page(opts: { title: string; stylesheets: string[]; scripts?: string[]; bodyClass?: string; nav: string; main: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${text(opts.title)} · Atrium</title>
${[
  ...opts.stylesheets.map((href) => `<link rel="stylesheet" href="${href}">`),
  ...(opts.scripts ?? []).map((src) => `<script src="${src}" defer></script>`),
].join('\n')}
</head>
<body${opts.bodyClass ? ` class="${opts.bodyClass}"` : ''}>
<a class="skip-link" href="#main">Skip to content</a>
<header class="docs-header">
<a class="brand" href="/">Atrium</a>
${opts.nav}
</header>
${opts.main}
</body>
</html>
`;
}

type Current = 'reference' | 'protocol' | 'guides' | 'other';

function nav(guides: Guides, current: Current): string {
  const item = (href: string, label: string, here: boolean) =>
    `<li><a href="${href}"${here ? ' aria-current="page"' : ''}>${label}</a></li>`;
  const items = [
    item('/docs', 'API reference', current === 'reference'),
    ...(guides.has('protocol') ? [item('/docs/protocol', 'Protocol guide', current === 'protocol')] : []),
    item('/docs/guides', 'All guides', current === 'guides'),
  ];
  return `<nav aria-label="Documentation"><ul>\n${items.join('\n')}\n</ul></nav>`;
}

function referenceHtml(guides: Guides): string {
  return page({
    title: 'API reference',
    stylesheets: [`${SWAGGER_UI_PREFIX}swagger-ui.css`, '/docs/assets/docs.css'],
    scripts: [`${SWAGGER_UI_PREFIX}swagger-ui-bundle.js`, '/docs/assets/reference.js'],
    bodyClass: 'reference',
    nav: nav(guides, 'reference'),
    main:
      '<main id="main"><div id="swagger-ui"><noscript><p class="prose">The API reference needs JavaScript. ' +
      'The contract itself is at <a href="/v0/openapi.json">/v0/openapi.json</a>.</p></noscript></div></main>',
  });
}

function guideHtml(guide: Guide, guides: Guides): string {
  return page({
    title: guide.title,
    stylesheets: ['/docs/assets/docs.css'],
    nav: nav(guides, guide.name === 'protocol' ? 'protocol' : 'other'),
    main: `<main id="main" class="prose">
${guide.html}
<hr>
<p class="docs-source">From <code>docs/${guide.name}.md</code>. The HTTP API itself is described in the <a href="/docs">API reference</a>.</p>
</main>`,
  });
}

function indexHtml(guides: Guides): string {
  const items = guides
    .all()
    .map((g) => `<li><a href="/docs/${g.name}">${text(g.title)}</a> <span class="docs-source">(${g.name}.md)</span></li>`)
    .join('\n');
  return page({
    title: 'Guides',
    stylesheets: ['/docs/assets/docs.css'],
    nav: nav(guides, 'guides'),
    main: `<main id="main" class="prose">
<h1>Guides</h1>
<p>How Atrium works, one topic a page. Every HTTP operation is in the <a href="/docs">API reference</a>, generated from the contract at <a href="/v0/openapi.json"><code>/v0/openapi.json</code></a>.</p>
${items ? `<ul class="guide-list">\n${items}\n</ul>` : '<p>No guides are installed on this host.</p>'}
</main>`,
  });
}
