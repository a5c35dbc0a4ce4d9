/** What the rest of the service may ask of this node's webhook worker (worker.ts). */
export interface WebhookDispatch {
  /** Something became sendable (a resume, a verified endpoint, a replay): look now. */
  kick(): void;
}
