import { useInbox } from './seen';

/**
 * The count of unread inbox items beside "Inbox" in the header: a small badge
 * to the eye, "3 unread" to a screen reader (it is part of the link's name).
 */
export function InboxBadge() {
  const { unread } = useInbox();
  if (unread === 0) return null;
  const shown = unread > 99 ? '99+' : String(unread);
  return (
    <span className="badge count inbox-badge">
      <span aria-hidden="true">{shown}</span>
      {/* The space lives here, not in the link's text, so no underlined gap shows before the badge. */}
      <span className="visually-hidden">{` ${unread} unread`}</span>
    </span>
  );
}
