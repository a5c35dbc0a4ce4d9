import type { ErrorCode, OAuthErrorName } from '../shared/error-catalogue.js';

/**
 * An OAuth error, answered as RFC 6749 asks (`{error, error_description}`)
 * rather than Atrium's `{detail}`: OAuth clients read these fields.
 */
export class OAuthError extends Error {
  /** What went wrong, for the page a browser is shown when the authorization endpoint cannot redirect (fault-page.ts). */
  fault: AuthorizationFault | undefined;

  constructor(
    readonly status: 400 | 429,
    readonly error: OAuthErrorName,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  /** The same error, saying which fault a person in a browser should be told of. */
  because(fault: AuthorizationFault): this {
    this.fault = fault;
    return this;
  }

  /** The code `Atrium-Error` carries: the catalogue holds every OAuth error as `oauth_<error>`. */
  get code(): ErrorCode {
    return `oauth_${this.error}`;
  }

  get body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/**
 * The faults the authorization endpoint answers itself, never redirecting
 * (an unchecked redirect would make Atrium an open redirector): each has its
 * own plain words on the page a browser is shown.
 */
export type AuthorizationFault =
  | { kind: 'no_client' }
  | { kind: 'unknown_client' }
  | { kind: 'document_unreachable'; host: string }
  | { kind: 'document_unusable'; host: string }
  | { kind: 'no_redirect_uri' }
  | { kind: 'redirect_uri_mismatch' };

export const invalidRequest = (description: string) => new OAuthError(400, 'invalid_request', description);
export const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);
export const invalidClient = (description: string) => new OAuthError(400, 'invalid_client', description);
