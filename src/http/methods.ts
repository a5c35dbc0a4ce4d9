import type { FastifyInstance } from 'fastify';

/**
 * The methods each API path answers, so that a known path asked with another
 * method is answered 405 with `Allow` (RFC 9110 §15.5.6) rather than a 404
 * that would suggest the path does not exist. Only API routes count: the web
 * app's catch-all page route would otherwise claim every path.
 */
export function trackAllowedMethods(app: FastifyInstance): (path: string) => string[] {
  const routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];
  app.addHook('onRoute', (route) => {
    if ((route.url !== '/v0' && !route.url.startsWith('/v0/')) || route.url.includes('*')) return;
    const pattern = new RegExp(`^${route.url.split('/').map(segmentPattern).join('/')}$`);
    const known = routes.find((r) => r.pattern.source === pattern.source);
    const methods = known?.methods ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    if (!known) routes.push({ pattern, methods });
  });
  return (path) => {
    const methods = new Set<string>();
    for (const route of routes) if (route.pattern.test(path)) for (const m of route.methods) methods.add(m);
    return [...methods].sort();
  };
}

function segmentPattern(segment: string): string {
  return segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
