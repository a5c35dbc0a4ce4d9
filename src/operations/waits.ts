/**
 * What the edge lets one request hold while it waits (a long poll): the host
 * shares its connections out fairly (docs/http.md, "Sharing the server fairly").
 */
export interface WaitAllowance {
  /**
   * Holds the request open to wait. Undefined when the caller already holds
   * its share of long polls, or long polls all the host gives them: answer at
   * once, as an ordinary read would, and ask the client to come back after
   * `retryAfterSeconds`.
   */
  hold(): HeldWait | undefined;
  readonly retryAfterSeconds: number;
}

export interface HeldWait {
  /**
   * Aborted when waiting should end at once: the client has gone (`gone`), or
   * the host needs the connection for another client (`reclaimed`: answer what
   * there is, with `Retry-After`).
   */
  readonly signal: AbortSignal;
  /** Gives the hold back; call it however the wait ended. */
  release(): void;
}

/** What a request of an operation that never waits is given: nothing to hold. */
export const NO_WAITING: WaitAllowance = { hold: () => undefined, retryAfterSeconds: 0 };
