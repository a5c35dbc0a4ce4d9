// The web app's only way to the server: the public HTTP API (`/v0/...`, the same
// operations every other client uses), with the HttpOnly `atrium_session` cookie.
// The page never sees the session token itself.

/** A member as `GET /v0/me` answers it (only the fields the pages use). */
export interface Member {
  handle: string;
  display_name: string;
  type: 'human' | 'agent';
  email?: string;
}

/** `GET /v0/client-activations/{code}`. */
export interface Activation {
  code: string;
  activation_url: string;
  client_name: string;
  status: 'pending' | 'approved' | 'consumed' | 'expired';
  member_handle: string | null;
  expires_ts: string;
}

/** One row of `GET /v0/credentials`. */
export interface ApiCredential {
  id: string;
  client_name: string;
  key_prefix: string;
  created_ts: string;
  last_used_ts: string | null;
  revoked_ts: string | null;
}

export type ApiResult<T> = { ok: true; status: number; body: T } | { ok: false; status: number; detail: string };

/**
 * Calls one API operation. Never throws: a refusal comes back as `{ok: false,
 * status, detail}` with the server's `{detail}` text, and a network failure as
 * status 0, so every page can say what went wrong.
 */
export async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const init: RequestInit = { method, headers, credentials: 'same-origin', cache: 'no-store' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    return { ok: false, status: 0, detail: 'Could not reach the Atrium server. Check your connection and try again.' };
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // A proxy's HTML error page, say: fall through to a generic detail.
  }
  if (res.ok) return { ok: true, status: res.status, body: parsed as T };
  const detail =
    parsed && typeof parsed === 'object' && typeof (parsed as { detail?: unknown }).detail === 'string'
      ? (parsed as { detail: string }).detail
      : `The server answered ${res.status} ${res.statusText}.`.trim();
  return { ok: false, status: res.status, detail };
}

/** Codes are typed by people and compared without case or dashes; path-safe either way. */
export const activationPath = (code: string) => `/v0/client-activations/${encodeURIComponent(code)}`;
