import type { AnchorHTMLAttributes, MouseEvent, ReactNode } from 'react';
import { navigate as browserNavigate, useBrowserLocation, useSearch } from 'wouter/use-browser-location';

// Routing is wouter's (docs/libraries.md): path patterns with parameters,
// `useParams`, and history handling. This module keeps the app's own small
// vocabulary on top of it, so pages say `navigate('/x')` and `<Link to>` with
// whole paths (also inside a Space's nested routes), and links stay real
// <a href> elements (open in a new tab, copy, keyboard).

export interface Location {
  pathname: string;
  search: URLSearchParams;
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  browserNavigate(to, { replace: opts.replace ?? false });
}

/** The whole path, also inside a Space's nested routes (where wouter's own hook is relative). */
export function useLocation(): Location {
  const [pathname] = useBrowserLocation();
  const search = useSearch();
  return { pathname, search: new URLSearchParams(search) };
}

/** An in-app link: a plain click navigates without a reload; modified clicks stay the browser's. */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={to} onClick={onClick}>
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
