import type { Logger } from 'pino';
import type { MailMessage, Mailer } from './mailer.js';

const inFlight = new WeakMap<Mailer, Set<Promise<void>>>();

/**
 * Sends a message without making the caller wait for it. Sign-in answers must
 * not reveal whether an address has an account (protocol: Sessions), and an SMTP round
 * trip taken only for known addresses would reveal exactly that through the
 * response time; so would an error surfacing from a failed send. A failure is
 * logged for the operator (without the message text, which holds a code).
 */
export function sendInBackground(mailer: Mailer, log: Logger, message: MailMessage): void {
  const pending = inFlight.get(mailer) ?? new Set<Promise<void>>();
  inFlight.set(mailer, pending);
  const delivery: Promise<void> = mailer
    .send(message)
    .catch((err: unknown) => {
      log.error({ to: message.to, subject: message.subject, error: describe(err) }, 'mail could not be sent');
    })
    .finally(() => pending.delete(delivery));
  pending.add(delivery);
}

/** Resolves once every message handed to `sendInBackground` so far has been sent or has failed. */
export async function mailSettled(mailer: Mailer): Promise<void> {
  const pending = inFlight.get(mailer);
  while (pending && pending.size > 0) await Promise.all([...pending]);
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
