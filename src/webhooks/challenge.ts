import { randomBytes } from 'node:crypto';
import type { AddressPolicy } from '../egress/address-policy.js';
import { EgressFailed, EgressRefused, sendEgress } from '../egress/request.js';
import { newId } from '../shared/ids.js';
import { signatureHeader, type SigningKey } from './signing-keys.js';

export const SPEC_VERSION = 'atrium.webhooks/1';

/** A receiver's answer to a challenge is read up to this size; a challenge echo is tiny. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Why a challenge failed, in words for the endpoint's owner; undefined when it succeeded. */
export type ChallengeOutcome = { ok: true } | { ok: false; reason: string };

/**
 * A fresh challenge value for `endpointId`: `<endpoint id>.<32 random
 * base64url characters>`. The envelope's fields are fixed, so the endpoint
 * rides in the value, where the signature covers it: a receiver that checks
 * it echoes only its own endpoint's challenge, and an echoing receiver cannot
 * be claimed as an endpoint by another member (docs/webhooks.md, "Endpoints").
 */
export function challengeFor(endpointId: string): string {
  return `${endpointId}.${randomBytes(24).toString('base64url')}`;
}

/**
 * Sends the signed challenge (docs/webhooks.md) and judges the answer: a 2xx
 * with a JSON body whose `challenge` echoes the one sent. Anything else (a
 * refused address, no answer in time, another status, a redirect, a missing
 * or wrong echo) fails, and the reason says which.
 */
export async function sendChallenge(opts: {
  endpointId: string;
  url: string;
  issuer: string;
  key: SigningKey;
  now: Date;
  policy: AddressPolicy;
  timeoutMs: number;
}): Promise<ChallengeOutcome> {
  const challenge = challengeFor(opts.endpointId);
  const id = newId('whd');
  const body = JSON.stringify({
    id,
    type: 'atrium.webhook.challenge',
    issuer: opts.issuer,
    challenge,
    created_ts: opts.now.toISOString(),
    spec_version: SPEC_VERSION,
  });
  const timestamp = Math.floor(opts.now.getTime() / 1000);
  let answer;
  try {
    answer = await sendEgress(
      {
        url: opts.url,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Atrium-Webhooks/1',
          'webhook-id': id,
          'webhook-key-id': opts.key.kid,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(opts.key, timestamp, body),
        },
        body,
      },
      opts.policy,
      { timeoutMs: opts.timeoutMs, maxResponseBytes: MAX_ANSWER_BYTES },
    );
  } catch (err) {
    if (err instanceof EgressRefused || err instanceof EgressFailed) return { ok: false, reason: err.reason };
    throw err;
  }
  if (answer.status >= 300 && answer.status < 400) return { ok: false, reason: `the receiver answered ${answer.status}, a redirect, which is not followed` };
  if (answer.status < 200 || answer.status >= 300) return { ok: false, reason: `the receiver answered ${answer.status}, not 2xx` };
  let echoed: unknown;
  try {
    echoed = (JSON.parse(answer.body.toString('utf8')) as { challenge?: unknown } | null)?.challenge;
  } catch {
    return { ok: false, reason: 'the receiver did not answer with JSON' };
  }
  if (echoed === undefined) return { ok: false, reason: 'the answer has no `challenge`' };
  if (echoed !== challenge) return { ok: false, reason: 'the answer echoes another `challenge`' };
  return { ok: true };
}
