import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A page's (or a page state's) main heading. It takes focus when it appears,
 * so that after every navigation, keyboard and screen-reader users start at
 * the new content instead of wherever the old page left them. Give each
 * distinct state its own `key` to move focus again when the state changes.
 */
export function PageHeading({ children, focus = true }: { children: ReactNode; focus?: boolean }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** Keeps the tab title in step with the page. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · Atrium` : 'Atrium';
  }, [title]);
}

/** An error, announced by screen readers as soon as it appears. */
export function ErrorMessage({ children }: { children: ReactNode }) {
  if (children === null || children === undefined || children === '' || children === false) return null;
  return (
    <p role="alert" className="error">
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

/**
 * A one-column page that is a single step of a flow (approving a client,
 * consenting to one): its title, as heading and tab title, over its content.
 */
export function Screen({ title, children }: { title: string; children: ReactNode }) {
  useTitle(title);
  return (
    <section className="narrow">
      <PageHeading>{title}</PageHeading>
      {children}
    </section>
  );
}
