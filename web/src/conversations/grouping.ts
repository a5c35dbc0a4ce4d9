// Consecutive messages by one author read as one turn, as in Slack and Zulip:
// only the first shows the author and time, the rest follow under it. A pause
// long enough to start a new thought, or a new day, starts a new turn.

/** A message this soon after the author's previous one continues their turn. */
export const TURN_GAP_MS = 5 * 60 * 1000;

interface Posted {
  author: string;
  created_ts: string;
}

export function continuesTurn(previous: Posted | undefined, message: Posted): boolean {
  if (!previous || previous.author !== message.author) return false;
  const before = new Date(previous.created_ts);
  const at = new Date(message.created_ts);
  const gap = at.getTime() - before.getTime();
  return gap >= 0 && gap < TURN_GAP_MS && before.toDateString() === at.toDateString();
}
