import { useMutation } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useLayoutEffect, useRef, useState, type ButtonHTMLAttributes, type ReactNode, type RefObject } from 'react';
import { errorText } from '../api/client';
import type { FormWords } from './form-errors';

/**
 * One button's (or form's) request, as a mutation: whether it is under way
 * and the server's refusal, if any. `run` answers true when the request
 * succeeded, so a form clears what the person typed only then and keeps it on
 * a failure. For controls that share one state across several requests (a
 * list's Admit and Remove); a single write can be its own `useMutation`. A
 * form passes its words (`FormWords`), so a refusal names its fields as its
 * labels do.
 */
export function useAction(form?: FormWords) {
  const { mutateAsync, isPending, isError, error } = useMutation({ mutationFn: (request: () => Promise<unknown>) => request() });
  const run = useCallback(
    async (request: () => Promise<unknown>): Promise<boolean> => {
      try {
        await mutateAsync(request);
        return true;
      } catch {
        return false;
      }
    },
    [mutateAsync],
  );
  return { busy: isPending, error: isError ? errorText(error, form) : '', run };
}

const FocusFallback = createContext<RefObject<HTMLElement | null> | null>(null);

/** What a page announces after an action, and the element that says it. */
export function useAnnouncer() {
  const ref = useRef<HTMLParagraphElement>(null);
  const [message, announce] = useState('');
  return { ref, message, announce };
}

/**
 * A polite status line for a list's actions. Buttons inside it (ActionButton)
 * that disappear with what they acted on (Admit, Approve, Accept…) hand focus
 * to this line, so a keyboard user continues here and hears what happened
 * instead of being thrown back to the top of the page.
 */
export function Announcer({ announcer, children }: { announcer: ReturnType<typeof useAnnouncer>; children?: ReactNode }) {
  return (
    <FocusFallback.Provider value={announcer.ref}>
      <p ref={announcer.ref} tabIndex={-1} role="status" className={announcer.message ? 'notice' : 'visually-hidden'}>
        {announcer.message}
      </p>
      {children}
    </FocusFallback.Provider>
  );
}

/**
 * A button for a request. While the request runs it is aria-disabled rather
 * than disabled: a disabled button drops focus, which then could not be handed
 * on when the button goes away.
 */
export function ActionButton({ busy = false, onClick, className, children, ...rest }: { busy?: boolean } & ButtonHTMLAttributes<HTMLButtonElement>) {
  const ref = useRef<HTMLButtonElement>(null);
  const fallback = useContext(FocusFallback);
  useLayoutEffect(() => {
    const button = ref.current;
    return () => {
      if (button && button === document.activeElement) fallback?.current?.focus();
    };
  }, [fallback]);
  return (
    <button
      type="button"
      ref={ref}
      className={className}
      aria-disabled={busy || undefined}
      onClick={(event) => {
        if (busy) event.preventDefault();
        else onClick?.(event);
      }}
      {...rest}
    >
      {children}
    </button>
  );
}
