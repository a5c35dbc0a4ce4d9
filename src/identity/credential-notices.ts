import type { TopicListener } from '../events/log.js';
import type { CredentialChanges } from './member-key-cache.js';

/**
 * PostgreSQL's way of learning that members or member keys changed anywhere
 * on the host: the notices of migration 0017's triggers, heard on the event
 * log's listener connection as its `credentials` topic. Not live until that
 * connection is up, nor while it is down.
 */
export function heardCredentialChanges(): CredentialChanges & TopicListener {
  const listeners: Array<() => void> = [];
  let listening = false;
  const changed = (): void => {
    for (const listener of listeners) listener();
  };
  return {
    get live() {
      return listening;
    },
    onChange: (listener) => void listeners.push(listener),
    heard: changed,
    hearing(live) {
      // Whatever changed while the connection was down went unheard: start from nothing.
      listening = live;
      changed();
    },
  };
}
