import type { ErrorCode, OAuthErrorName } from '../shared/error-catalogue.js';

/**
 * An OAuth error, answered as RFC 6749 asks (`{error, error_description}`)
 * rather than Atrium's `{detail}`: OAuth clients read these fields.
 */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 429,
    readonly error: OAuthErrorName,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  /** The code `Atrium-Error` carries: the catalogue holds every OAuth error as `oauth_<error>`. */
  get code(): ErrorCode {
    return `oauth_${this.error}`;
  }

  get body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

export const invalidRequest = (description: string) => new OAuthError(400, 'invalid_request', description);
export const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);
export const invalidClient = (description: string) => new OAuthError(400, 'invalid_client', description);
