/** The two protected resources: the REST API and the MCP endpoint (docs/oauth.md, "Discovery"). */
export const RESOURCE_PATHS = { rest: '/v0', mcp: '/v0/mcp' } as const;
export type ResourceName = keyof typeof RESOURCE_PATHS;

export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The resource identifier a token for `which` is issued for: `<base>/v0` or `<base>/v0/mcp`. */
export function resourceUrl(baseUrl: string, which: ResourceName): string {
  return baseUrl + RESOURCE_PATHS[which];
}

/** Where a resource's Protected Resource Metadata (RFC 9728) is served: the well-known prefix before the resource's path. */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${PROTECTED_RESOURCE_METADATA_PATH}${url.pathname}`;
}

/** The scope a 401 names: everything a client may ask for, so that a first authorization asks for what the resource serves. */
export const CHALLENGE_SCOPE = 'read write';

/**
 * `WWW-Authenticate` for a refusal at a protected resource: where to discover
 * how to authorize, and (RFC 6750) why a presented token failed or what scope
 * it lacks. A 401 names the scope to ask for (MCP clients read it to choose
 * their first request's `scope`); a 403 names only the scope that is missing.
 */
export function bearerChallenge(resource: string, error?: 'invalid_token' | { insufficientScope: string }): string {
  const challenge = `Bearer realm="atrium", resource_metadata="${resourceMetadataUrl(resource)}"`;
  if (error === undefined) return `${challenge}, scope="${CHALLENGE_SCOPE}"`;
  if (error === 'invalid_token') return `${challenge}, error="invalid_token", scope="${CHALLENGE_SCOPE}"`;
  return `${challenge}, error="insufficient_scope", scope="${error.insufficientScope}"`;
}
