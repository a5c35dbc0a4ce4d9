import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mailSettled } from '../../src/mail/delivery.js';
import type { TestServer } from './server.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  code: string;
  link: URL;
}

export const SIGN_IN_CODE = /\b([BCDFGHJKMNPQRTWXY3467]{4}-[BCDFGHJKMNPQRTWXY3467]{4})\b/;

/**
 * The sign-in mails the server wrote to `<data dir>/outbox/*.eml` (docs/configuration.md:
 * no SMTP configured), oldest first; each call returns only mail not seen before.
 */
export function outbox(server: TestServer): () => Promise<Mail[]> {
  const dir = join(server.app.ctx.config.dataDir, 'outbox');
  const seen = new Set<string>();
  return async () => {
    await mailSettled(server.app.ctx.mailer);
    if (!existsSync(dir)) return [];
    const fresh = readdirSync(dir)
      .filter((f) => !seen.has(f))
      .sort();
    fresh.forEach((f) => seen.add(f));
    return fresh.map((f) => parseSignInMail(readFileSync(join(dir, f), 'utf8')));
  };
}

/** Just enough RFC 5322 for our own single-part text mails (headers, quoted-printable body). */
export function parseSignInMail(eml: string): Mail {
  const raw = eml.replace(/\r\n/g, '\n');
  const split = raw.indexOf('\n\n');
  const head = raw.slice(0, split).replace(/\n[ \t]+/g, ' ');
  let text = raw.slice(split + 2);
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  if (/quoted-printable/i.test(header('Content-Transfer-Encoding'))) {
    text = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  const code = SIGN_IN_CODE.exec(text)?.[1];
  const link = /(http\S+\/sign-in\?\S+)/.exec(text)?.[1];
  assert.ok(code && link, `no code or link in the mail:\n${raw}`);
  return { to: header('To'), subject: header('Subject'), text, code, link: new URL(link) };
}
