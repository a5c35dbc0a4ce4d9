import { useMutation, type UseQueryResult } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import { errorText } from '../api/client';
import { formatDateTime, formatRelative } from './format';
import { ErrorMessage, Loading } from './page';

// Small pieces every page uses, so the pages read alike and behave alike.

/** A moment, in the reader's locale, carried as ISO 8601 for machines. */
export function Time({ iso }: { iso: string }) {
  return <time dateTime={iso}>{formatDateTime(iso)}</time>;
}

/** A moment as how long ago it was ("3 hours ago"); the date itself is in `datetime` and the tooltip. */
export function RelativeTime({ iso, now }: { iso: string; now?: number }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso, now)}
    </time>
  );
}

/** A member's handle as the app shows it everywhere. */
export function Handle({ handle, agent }: { handle: string; agent?: boolean }) {
  return (
    <span className="handle">
      @{handle}
      {agent ? <span className="badge">agent</span> : null}
    </span>
  );
}

/**
 * A query's three states in one place: loading (announced), failed (the
 * server's own words), and loaded (rendered by `children`).
 */
export function Loaded<T>({ query, what, children }: { query: UseQueryResult<T>; what: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return <ErrorMessage>{`Could not load ${what}: ${errorText(query.error)}`}</ErrorMessage>;
  return <>{children(query.data)}</>;
}

/** A polite announcement of what just happened (screen readers read it out). */
export function Notice({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="notice">
      {children}
    </p>
  );
}

/**
 * A confirmation as a native modal <dialog>: the browser keeps focus inside
 * it and Escape cancels. "Cancel" gets the initial focus, so a stray Enter
 * does not confirm. `onConfirm` may fail: its message is shown in the dialog.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger = false,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  // Once confirmed, the button stays off: whoever opened the dialog closes it.
  const confirm = useMutation({ mutationFn: onConfirm });
  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" aria-describedby="confirm-description" onClose={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <div id="confirm-description">{children}</div>
      <ErrorMessage>{confirm.isError ? errorText(confirm.error) : ''}</ErrorMessage>
      <div className="actions">
        <button type="button" className="secondary" autoFocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className={danger ? 'danger' : undefined} disabled={confirm.isPending || confirm.isSuccess} onClick={() => confirm.mutate()}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/**
 * The button under a list that reads or shows the next part of it: disabled
 * while that is under way, saying so, so a second press never asks twice.
 */
export function ShowMore({ busy, onClick, children, busyText = 'Loading more…' }: { busy: boolean; onClick: () => unknown; children: ReactNode; busyText?: string }) {
  return (
    <div className="actions">
      <button type="button" className="secondary" disabled={busy} onClick={() => void onClick()}>
        {busy ? busyText : children}
      </button>
    </div>
  );
}
