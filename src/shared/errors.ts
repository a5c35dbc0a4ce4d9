import { ERROR_CATALOGUE, type ErrorCode, type ErrorCodeOf, type ErrorStatus } from './error-catalogue.js';

/**
 * The one error type domain code throws. The HTTP edge turns it into a
 * `{detail}` body with the status its code has in the catalogue and the code in
 * `Atrium-Error`; MCP turns it into a tool error with the same code. `detail` is
 * written for the caller: it never holds SQL, stack frames or secrets.
 */
export class AtriumError extends Error {
  /** Taken from the catalogue, so a code never travels with another status. */
  readonly status: ErrorStatus;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'AtriumError';
    this.status = ERROR_CATALOGUE[code].status;
  }
}

export const unauthenticated = (code: ErrorCodeOf<401>, detail: string) => new AtriumError(code, detail);
export const forbidden = (code: ErrorCodeOf<403>, detail: string) => new AtriumError(code, detail);
export const notFound = (code: ErrorCodeOf<404>, detail: string) => new AtriumError(code, detail);
export const conflict = (code: ErrorCodeOf<409>, detail: string) => new AtriumError(code, detail);
export const gone = (code: ErrorCodeOf<410>, detail: string) => new AtriumError(code, detail);
export const invalid = (code: ErrorCodeOf<422>, detail: string) => new AtriumError(code, detail);
