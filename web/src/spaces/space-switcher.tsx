import { useQuery } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { useFloatingDisclosure } from '../app/disclosure';
import { call, client } from '../api/client';
import { useMyMemberships } from '../api/standing';
import { Link, useLocation } from '../app/router';
import { useInbox } from '../inbox/seen';
import { spaceKeys, spacePath } from './space';
import './space-switcher.css';

// The Space switcher in the header: the signed-in person's Spaces, one step
// from anywhere, as Slack's workspace list and Zulip's organisation menu are.
// A Space with something unread for them (a mention or a direct message past
// their inbox mark) carries a dot, and so does the button while any Space
// other than the one shown has one. It is a disclosure, not an ARIA menu: a
// button that shows a list of ordinary links, so Tab, Enter and the screen
// reader's link list work as everywhere else; Escape closes it.

const currentSlug = (pathname: string) => /^\/spaces\/([^/]+)/.exec(pathname)?.[1];

export function SpaceSwitcher() {
  const id = useId();
  const { pathname } = useLocation();
  const { open, setOpen, box, button, onKeyDown } = useFloatingDisclosure<HTMLDivElement>();
  const memberships = useMyMemberships();
  const names = useQuery({ queryKey: spaceKeys.list, queryFn: async () => (await call(client.GET('/v0/spaces'))).spaces });
  const inbox = useInbox();
  const here = currentSlug(pathname);
  const current = here === undefined ? undefined : decodeURIComponent(here);

  const nameOf = (slug: string) => names.data?.find((s) => s.slug === slug)?.name;
  const mine = (memberships.data ?? [])
    .filter((m) => m.state === 'admitted')
    .map((m) => m.space)
    .sort((a, b) => (nameOf(a) ?? a).localeCompare(nameOf(b) ?? b));
  const unreadIn = new Set(inbox.seen === null ? [] : inbox.events.filter((e) => e.cursor > inbox.seen! && e.space).map((e) => e.space!));
  const elsewhere = mine.some((slug) => slug !== current && unreadIn.has(slug));

  // Following a link, or going anywhere else, closes it.
  useEffect(() => setOpen(false), [pathname, setOpen]);

  return (
    <div
      className="space-switcher"
      ref={box}
      onKeyDown={onKeyDown}
    >
      <button ref={button} type="button" className="secondary small" aria-expanded={open} aria-controls={`${id}-list`} onClick={() => setOpen(!open)}>
        {current ?? 'Spaces'}
        {elsewhere ? (
          <>
            <span className="unread-dot" aria-hidden="true" />
            <span className="visually-hidden">, unread in another Space</span>
          </>
        ) : null}
        <span aria-hidden="true"> ▾</span>
      </button>
      <div id={`${id}-list`} className="space-switcher-list" hidden={!open}>
        {mine.length === 0 ? (
          <p className="muted">You are not a member of any Space yet.</p>
        ) : (
          <ul aria-label="Your Spaces">
            {mine.map((slug) => (
              <li key={slug}>
                <Link to={spacePath(slug)} aria-current={slug === current ? 'page' : undefined}>
                  <span className="switcher-name">
                    {nameOf(slug) ?? slug}
                    {unreadIn.has(slug) ? <span className="visually-hidden">, unread</span> : null}
                  </span>
                  {nameOf(slug) !== undefined && nameOf(slug) !== slug ? <span className="muted switcher-slug">{slug}</span> : null}
                  {unreadIn.has(slug) ? <span className="unread-dot" aria-hidden="true" /> : null}
                </Link>
              </li>
            ))}
          </ul>
        )}
        <p className="space-switcher-all">
          <Link to="/">All Spaces</Link>
        </p>
      </div>
    </div>
  );
}
