import { useEffect, useState } from 'react';

/** The current time, renewed every `everyMs`, so "2 minutes ago" does not stay "now". */
export function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
