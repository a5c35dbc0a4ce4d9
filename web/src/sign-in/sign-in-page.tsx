import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { attempt, client } from '../api/client';
import { ErrorMessage, PageHeading, useTitle } from '../app/page';
import { Link, navigate, safeNext, useLocation } from '../app/router';
import { useSession } from '../api/session';

// Sign-in by mailed code (protocol: Sessions): first the address, then the code.
// The mailed link `/sign-in?email=…&code=…` fills both in but never submits by
// itself: mail scanners and link previewers open links, and must not spend the
// single-use code (or sign anyone in).

/** Where to return after signing in, kept across tabs: the mailed link opens a new one. */
const RETURN_KEY = 'atrium.sign-in.return';
/** As long as a code lives (10 minutes), with some slack for reading mail. */
const RETURN_TTL_MS = 15 * 60 * 1000;

function rememberReturn(email: string, next: string): void {
  try {
    localStorage.setItem(RETURN_KEY, JSON.stringify({ email: email.trim().toLowerCase(), next, at: Date.now() }));
  } catch {
    // Storage may be disabled; the same-tab `next` still works.
  }
}

function recallReturn(email: string): string | null {
  try {
    const saved = JSON.parse(localStorage.getItem(RETURN_KEY) ?? 'null') as { email?: string; next?: string; at?: number } | null;
    if (!saved || saved.email !== email.trim().toLowerCase() || typeof saved.at !== 'number') return null;
    if (Date.now() - saved.at > RETURN_TTL_MS) return null;
    return safeNext(saved.next);
  } catch {
    return null;
  }
}

function forgetReturn(): void {
  try {
    localStorage.removeItem(RETURN_KEY);
  } catch {
    // nothing to forget
  }
}

/**
 * What the person signs in for, when they were sent here on the way to
 * deciding something: a program's access (the OAuth consent page, which
 * passes on the name the program gives itself) or a command-line login.
 */
function signingInFor(next: string | null): { heading: string; words: string } | null {
  if (next?.startsWith('/activate/')) {
    return {
      heading: 'Sign in to approve the command-line login',
      words: 'Sign in to review the request from your command-line client. You will come back to it afterwards; nothing is approved until you do.',
    };
  }
  if (next?.startsWith('/oauth/consent')) {
    const client = new URL(next, window.location.origin).searchParams.get('client');
    return {
      heading: client ? `Sign in to approve ${client}’s access` : 'Sign in to approve a program’s access',
      words:
        `${client ? `A program calling itself “${client}”` : 'A program'} asked to use your Atrium account. ` +
        'Sign in, and you will come back to the request to decide what it may do; nothing is allowed until you do.',
    };
  }
  return null;
}

/** When the next code may be asked for, in words: the server says how many seconds remain. */
function nextCodeWords(email: string, retryAfter: number | undefined): string {
  const seconds = retryAfter ?? 15 * 60;
  const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const minutes = Math.ceil(seconds / 60);
  return (
    `No new code was sent: five codes were already asked for ${email} in the last 15 minutes. ` +
    `You can ask for another at ${at} (in ${minutes === 1 ? 'a minute' : `${minutes} minutes`}). ` +
    'A code that already reached you still works for 10 minutes after it was sent.'
  );
}

export function SignInPage() {
  const session = useSession();
  const location = useLocation();
  // Read once: the code is then removed from the address bar (and so from history).
  const [fromLink] = useState(() => ({
    email: location.search.get('email') ?? '',
    code: location.search.get('code') ?? '',
    next: safeNext(location.search.get('next')),
  }));
  const next = fromLink.next;
  const purpose = signingInFor(next);
  useTitle(purpose?.heading ?? 'Sign in');
  const [step, setStep] = useState<'email' | 'code'>(fromLink.email && fromLink.code ? 'code' : 'email');
  const [email, setEmail] = useState(fromLink.email);
  const [code, setCode] = useState(fromLink.code);
  const [notice, setNotice] = useState(
    fromLink.email && fromLink.code ? 'The code from your e-mail is filled in. Check it, then sign in.' : '',
  );
  const [error, setError] = useState('');
  // Both answer a result rather than throw: each refusal has its own words here.
  const sending = useMutation({ mutationFn: () => attempt(client.POST('/v0/sign-in/email', { body: { email: email.trim() } })) });
  const verifying = useMutation({
    // The HttpOnly cookie is the session; the page asks not to be handed the token at all.
    mutationFn: () => attempt(client.POST('/v0/sign-in/verify', { body: { email: email.trim(), code: code.trim(), session_token: 'cookie' } })),
  });
  const busy = sending.isPending || verifying.isPending;
  const emailField = useRef<HTMLInputElement>(null);
  const codeField = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!fromLink.code) return;
    const rest = new URLSearchParams(window.location.search);
    rest.delete('code');
    const query = rest.toString();
    navigate(`/sign-in${query ? `?${query}` : ''}`, { replace: true });
  }, [fromLink.code]);

  // Already signed in and sent here on the way somewhere (a stale tab, the Back
  // button): carry on there. A mailed link is honoured even then: it may be
  // for another account.
  const signedIn = session.state.status === 'signed-in';
  const carryOn = signedIn && !fromLink.code && next !== null;
  useEffect(() => {
    if (carryOn && next) navigate(next, { replace: true });
  }, [carryOn, next]);

  // Each step starts at its first field.
  useEffect(() => {
    (step === 'email' ? emailField : codeField).current?.focus();
  }, [step]);

  const requestCode = async (): Promise<boolean> => {
    setError('');
    const res = await sending.mutateAsync();
    if (!res.ok && res.status === 429) {
      // Nothing was sent, and the notice must not say otherwise; a code sent earlier may still be in the inbox.
      setNotice('');
      setError(nextCodeWords(email.trim(), res.retryAfter));
      setStep('code');
      codeField.current?.focus();
      return false;
    }
    if (!res.ok) {
      setError(res.status === 422 ? 'Enter a valid e-mail address, like name@example.org.' : res.detail);
      return false;
    }
    if (next) rememberReturn(email, next);
    setCode('');
    setNotice(
      `If ${email.trim()} belongs to an Atrium account, a sign-in code is on its way to it. ` +
        'The code works once, for 10 minutes.',
    );
    return true;
  };

  const onEmail = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (await requestCode()) setStep('code');
  };

  const onCode = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setError('');
    if (!code.trim()) {
      setError('Enter the code from the e-mail.');
      codeField.current?.focus();
      return;
    }
    const res = await verifying.mutateAsync();
    if (!res.ok) {
      // The notice said the code was filled in, or on its way: the refusal is what holds now.
      setNotice('');
      setError(
        res.status === 401
          ? 'That code is not right, or it was already used or has expired. Check it, or send a new code.'
          : res.detail,
      );
      codeField.current?.focus();
      return;
    }
    const destination = next ?? recallReturn(email) ?? '/';
    forgetReturn();
    session.signedIn(res.body.member);
    navigate(destination, { replace: true });
  };

  if (signedIn && !fromLink.code && !carryOn) {
    return (
      <section>
        <PageHeading>Signed in</PageHeading>
        <p>
          You are already signed in as <strong>@{session.state.status === 'signed-in' ? session.state.member.handle : ''}</strong>.
        </p>
        <p>
          <Link to="/">Continue</Link>
        </p>
      </section>
    );
  }

  return (
    <section className="narrow">
      <PageHeading focus={false}>{purpose?.heading ?? 'Sign in'}</PageHeading>
      {purpose ? <p>{purpose.words}</p> : null}
      {/* Always present, so that screen readers announce what is put in it. */}
      <p role="status" className={notice ? 'notice' : 'visually-hidden'}>
        {notice}
      </p>
      {step === 'email' ? (
        <form onSubmit={(e) => void onEmail(e)}>
          <p>We will e-mail you a one-time code. No password needed.</p>
          <div className="field">
            <label htmlFor="sign-in-email">E-mail address</label>
            <input
              ref={emailField}
              id="sign-in-email"
              name="email"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </div>
          <ErrorMessage>{error}</ErrorMessage>
          <div className="actions">
            <button type="submit" aria-disabled={busy}>
              {busy ? 'Sending…' : 'Send code'}
            </button>
          </div>
        </form>
      ) : (
        <form onSubmit={(e) => void onCode(e)}>
          <p>
            Signing in as <strong>{email.trim()}</strong>.
          </p>
          <div className="field">
            <label htmlFor="sign-in-code">Sign-in code</label>
            <input
              ref={codeField}
              id="sign-in-code"
              name="code"
              className="code-input"
              autoComplete="one-time-code"
              autoCapitalize="characters"
              spellCheck={false}
              aria-describedby="sign-in-code-hint"
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
            <p id="sign-in-code-hint" className="hint">
              Eight letters and digits from the e-mail, like <span className="mono">BCDF-3467</span>.
            </p>
          </div>
          <ErrorMessage>{error}</ErrorMessage>
          <div className="actions">
            <button type="submit" aria-disabled={busy}>
              {busy ? 'Signing in…' : 'Sign in'}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => void requestCode().then((sent) => sent && codeField.current?.focus())}
            >
              Send a new code
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setError('');
                setNotice('');
                setStep('email');
              }}
            >
              Use a different address
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
