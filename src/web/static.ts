import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Where `npm run build:web` puts the single-page app (web/vite.config.ts). The
 * same two levels up from src/web/ (tsx) and from dist/web/ (compiled).
 */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/**
 * The web app's client routes (web/src/app/app.tsx keeps the same list). Each is
 * answered with index.html, so reloads and pasted links work; the app then
 * renders the page itself.
 */
const CLIENT_ROUTES = [
  /^\/$/,
  /^\/(sign-in|credentials|inbox|agents|webhooks|search|operator)\/?$/,
  /^\/activate\/[^/]+\/?$/,
  // Where the authorization endpoint sends a person to consent (src/oauth/).
  /^\/oauth\/consent\/?$/,
  // Everything about one Space lives under its slug; the app says "not found" for what it does not know.
  /^\/spaces(\/[^/]+)*\/?$/,
];

/**
 * Everything the pages load comes from this origin, and nothing may frame
 * them: the activation page's Approve button must not be clickjacked. The
 * referrer is never sent, as the sign-in link carries a code in its query.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

const NOT_BUILT =
  'Atrium is running, but its web app has not been built.\n\n' +
  'Run `npm run build` (or `npm run build:web`) in the Atrium checkout, then reload this page.\n' +
  'The HTTP API is available meanwhile: GET /v0 lists its endpoints.\n';

/**
 * Serves the built web app at `/`, outside the API contract. It never shadows
 * the API: `/v0/...` and `/healthz` that no operation matched get the API's own
 * JSON 404 `{detail}`, and so does any request that does not ask for HTML.
 * `/docs...` is the documentation's (src/web/docs.ts), so the same holds there.
 */
export async function registerWebApp(app: FastifyInstance, opts: { root?: string } = {}): Promise<void> {
  const root = opts.root ?? DEFAULT_WEB_ROOT;
  const indexFile = join(root, 'index.html');
  if (!existsSync(indexFile)) app.log.warn(`web app not built (${indexFile} is missing): run \`npm run build\``);

  // `serve: false`: only `reply.sendFile`, within `root` (path traversal is refused there).
  await app.register(fastifyStatic, { root, serve: false, dotfiles: 'ignore', index: false });

  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = (request.url.split('?')[0] ?? '/').replace(/\/{2,}/g, '/');
    if (/^\/(v0|healthz|docs)(\/|$)/.test(path)) return reply.callNotFound();
    reply.headers(SECURITY_HEADERS);

    if (CLIENT_ROUTES.some((r) => r.test(path))) return sendIndex(reply, indexFile, root, 200);

    const lastSegment = path.slice(path.lastIndexOf('/') + 1);
    if (lastSegment.includes('.')) {
      // A built file. Hashed assets never change under their name; the rest may.
      reply.header(
        'cache-control',
        path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
      return reply.sendFile(path, root, { cacheControl: false });
    }

    // Some other page path: a browser gets the app, which says "Page not found"
    // under a real 404; everything else the API's JSON 404.
    if (wantsHtml(request) && existsSync(indexFile)) return sendIndex(reply, indexFile, root, 404);
    return reply.callNotFound();
  });
}

function sendIndex(reply: FastifyReply, indexFile: string, root: string, status: 200 | 404): FastifyReply {
  // Revalidated on every load, so a new build reaches browsers at once.
  reply.header('cache-control', 'no-cache');
  if (!existsSync(indexFile)) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
  return reply.code(status).sendFile('index.html', root, { cacheControl: false });
}

function wantsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/.test(request.headers.accept ?? '');
}
