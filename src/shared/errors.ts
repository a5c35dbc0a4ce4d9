/**
 * The one error type domain code throws. The HTTP edge turns it into a
 * `{detail}` body with `status`; MCP will turn it into a tool error with the same
 * pair. `detail` is written for the caller: it never holds SQL, stack frames or
 * secrets.
 */
export class AtriumError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'AtriumError';
  }
}

export const unauthenticated = (detail = 'a credential is required') => new AtriumError(401, detail);
export const forbidden = (detail: string) => new AtriumError(403, detail);
export const notFound = (detail: string) => new AtriumError(404, detail);
export const conflict = (detail: string) => new AtriumError(409, detail);
export const gone = (detail: string) => new AtriumError(410, detail);
export const invalid = (detail: string) => new AtriumError(422, detail);
