/**
 * Credential shapes. The prefix tells the edge which store to look in before any
 * database work, and lets secret scanners recognise a leaked Atrium key.
 */
export const MEMBER_KEY_PREFIX = 'sk_atrium_';
export const SESSION_TOKEN_PREFIX = 'st_atrium_';
export const SESSION_COOKIE = 'atrium_session';
/** Sessions last 30 days; signing out revokes one at once. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** OAuth access tokens (one hour) and refresh tokens, issued to clients a person consented to (docs/oauth.md). */
export const ACCESS_TOKEN_PREFIX = 'at_atrium_';
export const REFRESH_TOKEN_PREFIX = 'rt_atrium_';
