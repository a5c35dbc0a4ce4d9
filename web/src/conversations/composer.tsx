import { useMutation } from '@tanstack/react-query';
import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { errorText } from '../api/client';
import { ErrorMessage } from '../app/page';
import { mentionAtCaret, suggestHandles } from './mentions';
import { sendsOnKey, useEnterSends } from './send-key';

// The message composer: a labelled textarea that completes `@handles` as
// they are typed, in the ARIA combobox pattern (the textarea keeps focus;
// arrow keys move through a listbox of members, Enter or Tab picks one,
// Escape closes it). Enter sends and Shift+Enter adds a line, unless the person
// turned "Enter sends" off beside the composer (send-key.ts); Ctrl/⌘+Enter and
// the Send button always post. What was typed stays until the server accepted it.

interface Completion {
  start: number;
  query: string;
  options: string[];
}

export function Composer({
  label,
  mentions,
  handles,
  me,
  onSend,
}: {
  /** The textarea's label, naming where the message goes ("Message #general"). */
  label: string;
  /** Whether `@handles` notify here (not in a direct message) and are completed. */
  mentions: boolean;
  /** Who may be completed after an `@`. */
  handles: readonly string[];
  me: string | null;
  /** Posts the text; throws the server's refusal. */
  onSend: (body: string) => Promise<void>;
}) {
  const id = useId();
  const area = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState('');
  /** Where the caret goes once a picked handle is in the textarea. */
  const caretAfterRender = useRef<number | null>(null);
  const [completion, setCompletion] = useState<Completion | null>(null);
  const [active, setActive] = useState(0);
  /** Where the person pressed Escape: that `@` is left alone until they type elsewhere. */
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [enterSends, setEnterSends] = useEnterSends();

  const listId = `${id}-mentions`;
  const optionId = (i: number) => `${id}-mention-${i}`;
  const open = completion !== null && completion.options.length > 0;

  const complete = (value: string, caret: number, dismissed = dismissedAt) => {
    const at = mentions ? mentionAtCaret(value, caret) : null;
    if (!at || at.start === dismissed) {
      setCompletion(null);
      return;
    }
    const options = suggestHandles(handles, at.query, me);
    setCompletion({ ...at, options });
    setActive(0);
  };

  const pick = (handle: string) => {
    if (!completion) return;
    const caret = area.current?.selectionStart ?? text.length;
    const inserted = `@${handle} `;
    const next = text.slice(0, completion.start) + inserted + text.slice(caret);
    setText(next);
    setCompletion(null);
    caretAfterRender.current = completion.start + inserted.length;
  };

  // The caret goes after the inserted handle in the same commit that puts the handle in the
  // textarea, before the browser handles the next key. (Placed a frame later, it could land
  // behind characters typed meanwhile, and the rest of the message would come out scrambled.)
  useLayoutEffect(() => {
    const position = caretAfterRender.current;
    if (position === null) return;
    caretAfterRender.current = null;
    area.current?.setSelectionRange(position, position);
  });

  // On a refusal the text stays as it was typed, so nothing is lost.
  const sending = useMutation({
    mutationFn: onSend,
    onSuccess: () => {
      setText('');
      setCompletion(null);
      setDismissedAt(null);
    },
  });
  const busy = sending.isPending;
  const send = () => {
    if (busy || text.trim() === '') return;
    sending.mutate(text);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open) {
      const count = completion.options.length;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        setActive((i) => (i + (event.key === 'ArrowDown' ? 1 : count - 1)) % count);
        return;
      }
      if ((event.key === 'Enter' && !event.ctrlKey && !event.metaKey) || event.key === 'Tab') {
        event.preventDefault();
        pick(completion.options[active]!);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setDismissedAt(completion.start);
        setCompletion(null);
        return;
      }
    }
    if (sendsOnKey({ ...event, isComposing: event.nativeEvent.isComposing }, enterSends)) {
      event.preventDefault();
      send();
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <label htmlFor={`${id}-body`}>{label}</label>
      <div className="composer-input">
        <textarea
          id={`${id}-body`}
          ref={area}
          value={text}
          rows={2}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open ? optionId(active) : undefined}
          aria-describedby={`${id}-hint`}
          onChange={(event) => {
            setText(event.target.value);
            const caret = event.target.selectionStart;
            // Typing moves on from a dismissed `@` only once the caret leaves it.
            const dismissed = dismissedAt !== null && mentionAtCaret(event.target.value, caret)?.start === dismissedAt ? dismissedAt : null;
            setDismissedAt(dismissed);
            complete(event.target.value, caret, dismissed);
          }}
          onSelect={(event) => {
            const el = event.currentTarget;
            if (completion && el.selectionStart !== el.selectionEnd) setCompletion(null);
          }}
          onBlur={() => setCompletion(null)}
          onKeyDown={onKeyDown}
        />
        <ul id={listId} role="listbox" aria-label="Members to mention" className="mention-options" hidden={!open}>
          {open
            ? completion.options.map((handle, i) => (
                <li
                  key={handle}
                  id={optionId(i)}
                  role="option"
                  aria-selected={i === active}
                  // mousedown, not click: the textarea must keep focus (and its caret).
                  onMouseDown={(event) => {
                    event.preventDefault();
                    pick(handle);
                  }}
                >
                  @{handle}
                </li>
              ))
            : null}
        </ul>
      </div>
      <p className="visually-hidden" role="status">
        {open ? `${completion.options.length} ${completion.options.length === 1 ? 'member' : 'members'} to mention: up and down arrows to choose, Enter to pick.` : ''}
      </p>
      <ErrorMessage>{sending.isError ? `Could not send: ${errorText(sending.error)}` : ''}</ErrorMessage>
      <div className="composer-footer">
        <p id={`${id}-hint`} className="hint">
          {enterSends ? 'Enter sends, Shift+Enter adds a line.' : 'Enter adds a line, Ctrl+Enter (⌘+Enter on a Mac) sends.'} Markdown.
          {mentions ? ' Type @ to mention a member.' : ''}
        </p>
        <label className="send-key">
          <input type="checkbox" checked={enterSends} onChange={(event) => setEnterSends(event.target.checked)} />
          Enter sends
        </label>
        <button type="submit" aria-disabled={busy} disabled={text.trim() === ''}>
          {busy ? 'Sending…' : 'Send'}
        </button>
      </div>
    </form>
  );
}
