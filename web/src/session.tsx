import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, type Member } from './api';

// Who is signed in, as far as this page knows. The truth is the HttpOnly
// session cookie, which the page cannot read: it asks `GET /v0/me` once at
// start, and learns of changes from sign-in, sign-out, and any 401 on the way.

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out' }
  | { status: 'signed-in'; member: Member }
  | { status: 'unreachable'; detail: string };

interface SessionApi {
  state: SessionState;
  signedIn(member: Member): void;
  /** The server said 401: the cookie is gone or no longer valid. */
  lost(): void;
  signOut(): Promise<{ ok: true } | { ok: false; detail: string }>;
  retry(): void;
}

const SessionContext = createContext<SessionApi | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    const me = await api<Member>('GET', '/v0/me');
    if (me.ok) setState({ status: 'signed-in', member: me.body });
    // 401: no (valid) session. 403: a suspended member, who cannot do anything here either.
    else if (me.status === 401 || me.status === 403) setState({ status: 'signed-out' });
    else setState({ status: 'unreachable', detail: me.detail });
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  // Stable functions, so pages can list them as effect dependencies.
  const signedIn = useCallback((member: Member) => setState({ status: 'signed-in', member }), []);
  const lost = useCallback(() => setState({ status: 'signed-out' }), []);
  const signOut = useCallback(async (): Promise<{ ok: true } | { ok: false; detail: string }> => {
    const res = await api('POST', '/v0/sign-out');
    // 401: the session had already ended; either way nobody is signed in now.
    if (!res.ok && res.status !== 401) return { ok: false, detail: res.detail };
    setState({ status: 'signed-out' });
    return { ok: true };
  }, []);
  const retry = useCallback(() => void load(), [load]);
  const value = useMemo<SessionApi>(() => ({ state, signedIn, lost, signOut, retry }), [state, signedIn, lost, signOut, retry]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionApi {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
