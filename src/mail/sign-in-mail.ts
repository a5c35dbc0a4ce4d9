import type { MailMessage } from './mailer.js';

export interface SignInMailInput {
  to: string;
  handle: string;
  code: string;
  baseUrl: string;
  validMinutes: number;
  /** The address already had an account when someone tried to sign up with it. */
  existingAccount?: boolean;
}

/** protocol: Sessions. The code, and a link `<base>/sign-in?email=…&code=…` that fills it in. */
export function signInLink(baseUrl: string, email: string, code: string): string {
  const url = new URL('/sign-in', baseUrl);
  url.searchParams.set('email', email);
  url.searchParams.set('code', code);
  return url.toString();
}

export function signInMail(input: SignInMailInput): MailMessage {
  const opening = input.existingAccount
    ? `Someone, hopefully you, tried to sign up to Atrium with this address. It already belongs to @${input.handle}, so here is a code to sign in to that account instead.`
    : `Here is your code to sign in to Atrium as @${input.handle}.`;
  const text = [
    opening,
    '',
    `    ${input.code}`,
    '',
    'Or open this link:',
    signInLink(input.baseUrl, input.to, input.code),
    '',
    `The code works once and only for the next ${input.validMinutes} minutes. A newer code replaces it.`,
    'If you did not ask for it, ignore this message: nobody can sign in without the code.',
    '',
  ].join('\n');
  // The subject stays free of the code: mailers log subjects, and the code is a secret.
  return { to: input.to, subject: 'Your Atrium sign-in code', text };
}
