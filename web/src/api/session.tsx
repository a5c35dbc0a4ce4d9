import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError, call, client, setUnauthenticatedHandler, type Schemas } from './client';

// Who is signed in, as far as this page knows. The truth is the HttpOnly
// session cookie, which the page cannot read: it asks `GET /v0/me` once at
// start, and learns of changes from sign-in, sign-out, and any 401 on the way.

export type Member = Pick<Schemas['Member'], 'handle' | 'display_name' | 'type'> & { email?: string };

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
  const queries = useQueryClient();

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      setState({ status: 'signed-in', member: await call(client.GET('/v0/me')) });
    } catch (err) {
      // 401: no (valid) session. 403: a suspended member, who cannot do anything here either.
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) setState({ status: 'signed-out' });
      else setState({ status: 'unreachable', detail: err instanceof ApiError ? err.detail : String(err) });
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  // Stable functions, so pages can list them as effect dependencies.
  const signedIn = useCallback(
    (member: Member) => {
      // Whatever was cached belonged to whoever was signed in before.
      queries.clear();
      setState({ status: 'signed-in', member });
    },
    [queries],
  );
  const lost = useCallback(() => {
    queries.clear();
    setState({ status: 'signed-out' });
  }, [queries]);
  useEffect(() => setUnauthenticatedHandler(lost), [lost]);
  const signOut = useCallback(async (): Promise<{ ok: true } | { ok: false; detail: string }> => {
    try {
      await call(client.POST('/v0/sign-out'));
    } catch (err) {
      // 401: the session had already ended; either way nobody is signed in now.
      if (!(err instanceof ApiError && err.status === 401)) return { ok: false, detail: err instanceof ApiError ? err.detail : String(err) };
    }
    queries.clear();
    setState({ status: 'signed-out' });
    return { ok: true };
  }, [queries]);
  const retry = useCallback(() => void load(), [load]);
  const value = useMemo<SessionApi>(() => ({ state, signedIn, lost, signOut, retry }), [state, signedIn, lost, signOut, retry]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionApi {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
