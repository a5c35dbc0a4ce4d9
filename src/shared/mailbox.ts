/**
 * Whether `text` is an address mail can be sent to: `local@domain` as RFC 5321
 * allows it, widened to UTF-8 by RFC 6531 (SMTPUTF8), which nodemailer sends.
 * Deliberately not the common "has a dot in the domain" rule: `ops@localhost`
 * is a fine address on a private host, and so is `josé@exämple.org`.
 * Quoted local parts and address literals (`user@[192.0.2.1]`) are refused:
 * no real sign-in needs them, and they are where parsers disagree.
 */
export function isMailbox(text: string): boolean {
  if (text.length > 254) return false;
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1) return false;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  return isLocalPart(local) && isDomain(domain);
}

// Dot-atom text (RFC 5322 atext) plus any non-ASCII character other than controls and spaces (RFC 6531 UTF8-non-ascii).
const ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\-\u0080-\uFFFF]+$/u;
const NOT_TEXT = /[\p{Cc}\p{Cf}\p{Z}]/u;

function isLocalPart(local: string): boolean {
  if (new TextEncoder().encode(local).length > 64 || NOT_TEXT.test(local)) return false;
  return local.split('.').every((atom) => ATOM.test(atom));
}

// A label of letters and digits in any script, with inner hyphens (IDNA U-labels and A-labels alike).
const LABEL = /^[\p{L}\p{N}\p{M}](?:[\p{L}\p{N}\p{M}-]{0,61}[\p{L}\p{N}\p{M}])?$/u;

function isDomain(domain: string): boolean {
  if (domain.length > 253) return false;
  return domain.split('.').every((label) => LABEL.test(label));
}
