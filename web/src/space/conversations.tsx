import type { Space } from '../client';
import { PageHeading, useTitle } from '../page';

// Placeholder: replaced by the page's real implementation.
export function ChannelPage() {
  useTitle('Channel');
  return <PageHeading>Channel</PageHeading>;
}

export function DirectMessagePage() {
  useTitle('Direct messages');
  return <PageHeading>Direct messages</PageHeading>;
}

export function ConversationsNav({ space }: { space: Space }) {
  return <p className="muted">{space.slug}</p>;
}
