import createClient from 'openapi-fetch';
import type { components, paths } from '../../../src/client/openapi';
import { formErrorText, type FormWords } from '../app/form-errors';

// The web app's one way to the server: the typed client generated from the
// served OpenAPI contract (src/client/openapi.ts, `npm run generate:client`),
// over the same public `/v0` operations every other client uses. The browser
// sends the HttpOnly `atrium_session` cookie; the page never sees the token.

export type Schemas = components['schemas'];
export type Space = Schemas['Space'];
export type Event = Schemas['Event'];

export const client = createClient<paths>({ baseUrl: '', credentials: 'same-origin', cache: 'no-store' });

/** A refusal from the server (its `{detail}`), or status 0 when it could not be reached. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** The refusal's whole body: a 409 on a stale Resource edit carries the newer version, for one. */
    readonly body?: unknown,
    /** What refused it, from `Atrium-Error` (docs/errors.md). */
    readonly code?: string,
    /** From `Retry-After` on a 429 or 503: the seconds to wait before asking again. */
    readonly retryAfter?: number,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

let onUnauthenticated: () => void = () => {};

/** The session provider learns here of any 401: the cookie is gone or no longer valid. */
export function setUnauthenticatedHandler(handler: () => void): void {
  onUnauthenticated = handler;
}

const UNREACHABLE = 'Could not reach the Atrium server. Check your connection and try again.';

/**
 * Awaits one typed call and answers its body, or throws an ApiError with the
 * server's own `{detail}` text, so every page can say what went wrong.
 *
 *     const space = await call(client.GET('/v0/spaces/{slug}', { params: { path: { slug } } }));
 */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request;
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, UNREACHABLE);
  }
  if (result.response.ok) return result.data as T;
  const status = result.response.status;
  const body = result.error;
  const detail =
    typeof body === 'object' && body !== null && typeof (body as { detail?: unknown }).detail === 'string'
      ? (body as { detail: string }).detail
      : `The server answered ${status}.`;
  if (status === 401) onUnauthenticated();
  const retryAfter = Number(result.response.headers.get('Retry-After') ?? Number.NaN);
  throw new ApiError(status, detail, body, result.response.headers.get('Atrium-Error') ?? undefined, Number.isFinite(retryAfter) ? retryAfter : undefined);
}

/** What to show for a failed call; for a form, in its own words (`formErrorText`). */
export function errorText(err: unknown, form?: FormWords): string {
  if (err instanceof ApiError) return form ? formErrorText(err, form) : err.detail;
  return err instanceof Error ? err.message : String(err);
}

export type Outcome<T> = { ok: true; body: T } | { ok: false; status: number; detail: string; retryAfter?: number };

/** `call` for pages that branch on the status rather than catch: never throws an ApiError. */
export async function attempt<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Outcome<T>> {
  try {
    return { ok: true, body: await call(request) };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, status: err.status, detail: err.detail, retryAfter: err.retryAfter };
    throw err;
  }
}
