import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import { newId } from '../shared/ids.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * Real SMTP through nodemailer when `ATRIUM_SMTP_URL` is set. Otherwise
 * (docs/configuration.md) the mail is written to `<data dir>/outbox/*.eml` and to the
 * server log: without SMTP that is the only way a first-time operator can read a
 * sign-in code, so this development mode deliberately logs the message.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; dataDir: string; log: Logger }): Mailer {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      async send(message) {
        await transport.sendMail({ from: opts.from, ...message });
        opts.log.info({ to: message.to, subject: message.subject }, 'mail sent');
      },
      close: () => transport.close(),
    };
  }
  const outbox = join(opts.dataDir, 'outbox');
  const stream = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await stream.sendMail({ from: opts.from, ...message });
      await mkdir(outbox, { recursive: true });
      const file = join(outbox, `${Date.now()}-${newId('mail')}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      opts.log.info({ to: message.to, subject: message.subject, file, text: message.text }, 'mail written to outbox (no ATRIUM_SMTP_URL)');
    },
    close: () => stream.close(),
  };
}
