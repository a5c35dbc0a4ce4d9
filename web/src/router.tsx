import { createContext, useContext, useEffect, useState, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

// A router this small needs no library: four routes, history.pushState, and
// links that stay real <a href> elements (so they open in a new tab, can be
// copied, and work with the keyboard like any link).

const NAVIGATE_EVENT = 'atrium:navigate';

export interface Location {
  pathname: string;
  search: URLSearchParams;
}

function current(): Location {
  return { pathname: window.location.pathname, search: new URLSearchParams(window.location.search) };
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

const LocationContext = createContext<Location>({ pathname: '/', search: new URLSearchParams() });

export function RouterProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState<Location>(current);
  useEffect(() => {
    const update = () => setLocation(current());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE_EVENT, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE_EVENT, update);
    };
  }, []);
  return <LocationContext.Provider value={location}>{children}</LocationContext.Provider>;
}

export const useLocation = () => useContext(LocationContext);

/** An in-app link: a plain click navigates without a reload; modified clicks stay the browser's. */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}

/**
 * Where to go after signing in. Only a path on this site is accepted, so a
 * crafted `?next=https://elsewhere` (or `//elsewhere`) cannot turn the sign-in
 * page into an open redirect.
 */
export function safeNext(raw: string | null | undefined): string | null {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return null;
  try {
    const url = new URL(raw, window.location.origin);
    if (url.origin !== window.location.origin) return null;
    return url.pathname + url.search;
  } catch {
    return null;
  }
}

export function signInPath(next: string): string {
  return `/sign-in?${new URLSearchParams({ next }).toString()}`;
}
