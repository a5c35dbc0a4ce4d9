import { useEffect, useRef, useState, type KeyboardEvent } from 'react';

/**
 * A disclosure that floats over the page (the Space switcher, the reaction picker): a button
 * that shows a box. A press outside the box closes it, and Escape closes it and gives focus
 * back to the button, so a keyboard user is never left inside something that went away.
 */
export function useFloatingDisclosure<Box extends HTMLElement>() {
  const [open, setOpen] = useState(false);
  const box = useRef<Box>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open]);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open) return;
    event.stopPropagation();
    setOpen(false);
    button.current?.focus();
  };

  /** Closes it and gives focus back to its button (after a choice inside it). */
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  return { open, setOpen, close, box, button, onKeyDown };
}
