import { useCallback, useState } from 'react';
import { errorText } from '../client';

/**
 * One button's (or form's) request: whether it is under way and the server's
 * refusal, if any. `run` answers true when the request succeeded, so a form
 * clears what the person typed only then and keeps it on a failure.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const run = useCallback(async (request: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError('');
    try {
      await request();
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}

export const JOIN_POLICY_LABEL = {
  open: 'Open: anyone may join',
  request: 'On request: an Owner or Host admits',
  invite: 'Invite-only',
} as const;

export const JOIN_POLICY_SHORT = { open: 'open', request: 'on request', invite: 'invite-only' } as const;
