import { useCallback, useSyncExternalStore } from 'react';

// Which key sends a message is the person's own choice, kept in this browser
// (like Slack's and Zulip's setting): Enter sends by default, as in every chat
// app, and Shift+Enter adds a line; people who write long Markdown can turn
// that off, and then Enter adds a line and Ctrl/⌘+Enter sends. Ctrl/⌘+Enter
// sends either way, so the shortcut the app has always had keeps working.

const KEY = 'atrium.enter-sends';
const listeners = new Set<() => void>();

function read(): boolean {
  try {
    return localStorage.getItem(KEY) !== 'off';
  } catch {
    // Storage refused (a privacy mode): the default holds for this page.
    return true;
  }
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  // Another tab changing the setting changes it here too.
  const onStorage = (event: StorageEvent) => {
    if (event.key === KEY) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** Whether Enter alone sends, and a setter that every composer on the page follows. */
export function useEnterSends(): [boolean, (on: boolean) => void] {
  const enterSends = useSyncExternalStore(subscribe, read);
  const set = useCallback((on: boolean) => {
    try {
      localStorage.setItem(KEY, on ? 'on' : 'off');
    } catch {
      // Not kept: it still applies until the page is left.
    }
    for (const listener of listeners) listener();
  }, []);
  return [enterSends, set];
}

/** What a key press in the composer means: send, or leave it to the textarea (a new line). */
export function sendsOnKey(event: { key: string; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean; altKey: boolean; isComposing: boolean }, enterSends: boolean): boolean {
  // An input method still composing (Japanese, Chinese, Korean) uses Enter to confirm a word.
  if (event.key !== 'Enter' || event.isComposing) return false;
  if (event.ctrlKey || event.metaKey) return true;
  return enterSends && !event.shiftKey && !event.altKey;
}
