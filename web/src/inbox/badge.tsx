// Placeholder: replaced by the inbox's unread count.
export function InboxBadge() {
  return null;
}
