import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { challengeEndpointId, WebhookVerificationError, WebhookVerifier, type WebhookJwk, type WebhookVerifierOptions, type WebhookVerificationReason } from '../src/webhooks/verifier.js';

/**
 * The receiver's verifier against keys and signatures made here with
 * node:crypto alone, as a host would make them; the clock is injected.
 */

const ISSUER = 'https://atrium.example.org';
const SUBSCRIPTION = 'whsub_aaaaaaaaaaaaaaaaaaaaaaaaaa';
const ENDPOINT = 'whep_aaaaaaaaaaaaaaaaaaaaaaaaaa';
const OTHER_ENDPOINT = 'whep_bbbbbbbbbbbbbbbbbbbbbbbbbb';
const NOW = Date.parse('2026-11-25T14:30:00.000Z');
const NOW_S = NOW / 1000;

interface TestKey {
  jwk: WebhookJwk;
  privateKey: KeyObject;
}

function newKey(): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  const kid = createHash('sha256').update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x })).digest('base64url');
  return { jwk: { kid, kty: 'OKP', crv: 'Ed25519', x, alg: 'EdDSA', use: 'sig', status: 'active', created_ts: '2026-11-01T00:00:00.000Z' }, privateKey };
}

function spaceDelivery(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    spec_version: 'atrium.webhooks/1',
    id: 'whd_delivery0000000000000000001',
    type: 'atrium.events.available',
    issuer: ISSUER,
    subscription_id: SUBSCRIPTION,
    subscription_version: 1,
    space: 'plaza',
    event_range: { after: 10, through: 14 },
    created_ts: '2026-11-25T14:30:00.000Z',
    ...overrides,
  };
}

function inboxDelivery(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { space: _space, ...rest } = spaceDelivery({ type: 'atrium.inbox_events.available', ...overrides });
  return rest;
}

function challenge(): Record<string, unknown> {
  return {
    id: 'whd_challenge00000000000000000001',
    type: 'atrium.webhook.challenge',
    issuer: ISSUER,
    challenge: `${ENDPOINT}.c2lnbmVkIGNoYWxsZW5nZSB2YWx1ZQ`,
    created_ts: '2026-11-25T14:30:00.000Z',
    spec_version: 'atrium.webhooks/1',
  };
}

/** Headers and raw body as the host sends them, signed here. */
function signed(
  key: TestKey,
  body: Record<string, unknown> | string,
  opts: { timestamp?: number; id?: string; kid?: string } = {},
): { headers: Record<string, string>; rawBody: Buffer } {
  const rawBody = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  const timestamp = opts.timestamp ?? NOW_S;
  const kid = opts.kid ?? key.jwk.kid;
  const signature = sign(null, Buffer.concat([Buffer.from(`${kid}.${timestamp}.`), rawBody]), key.privateKey).toString('base64url');
  const id = opts.id ?? (typeof body === 'string' ? 'whd_x' : String(body.id));
  return {
    headers: { 'webhook-id': id, 'webhook-key-id': kid, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1=${signature}`, 'content-type': 'application/json' },
    rawBody,
  };
}

/** A verifier over a key set the test controls, counting its fetches, on a clock the test moves. */
function setup(keys: TestKey[], opts: Partial<WebhookVerifierOptions> = {}) {
  const state = { keys: keys.map((k) => k.jwk), fetches: 0, now: NOW, fail: false };
  const verifier = new WebhookVerifier({
    issuer: `${ISSUER}/`,
    subscriptionId: SUBSCRIPTION,
    fetchKeys: async () => {
      state.fetches += 1;
      if (state.fail) throw new Error('connection refused');
      return state.keys;
    },
    now: () => new Date(state.now),
    ...opts,
  });
  return { verifier, state };
}

async function refusal(promise: Promise<unknown>, reason: WebhookVerificationReason): Promise<WebhookVerificationError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof WebhookVerificationError, String(err));
    assert.equal(err.reason, reason, err.message);
    return err;
  }
  assert.fail(`expected a refusal (${reason}), but the request was accepted`);
}

describe('WebhookVerifier', () => {
  it('accepts a Space delivery, an inbox delivery and a challenge, signed over the raw bytes', async () => {
    const key = newKey();
    const { verifier, state } = setup([key]);

    const space = await verifier.verify(signed(key, spaceDelivery()));
    assert.deepEqual(space.envelope, spaceDelivery());
    assert.equal(space.keyId, key.jwk.kid);
    assert.equal(space.timestamp, NOW_S);

    const inbox = await verifier.verify(signed(key, inboxDelivery()));
    assert.equal(inbox.envelope.type, 'atrium.inbox_events.available');
    assert.equal('space' in inbox.envelope, false);

    const challenged = await verifier.verify(signed(key, challenge()));
    assert.equal(challenged.envelope.type, 'atrium.webhook.challenge');
    assert.equal(challenged.envelope.type === 'atrium.webhook.challenge' && challenged.envelope.challenge, challenge().challenge);

    // Whitespace and field order are the host's: the bytes are what was signed, not a re-serialisation.
    const spaced = `{ "spec_version":"atrium.webhooks/1", "type":"atrium.events.available", "id":"whd_spaced", "issuer":"${ISSUER}", "subscription_id":"${SUBSCRIPTION}", "subscription_version":3, "space":"plaza", "event_range":{"after":0,"through":1}, "created_ts":"2026-11-25T14:30:00.000Z", "added_later": true }`;
    const verified = await verifier.verify(signed(key, spaced, { id: 'whd_spaced' }));
    assert.equal(verified.envelope.id, 'whd_spaced');

    // A fetch Headers object works as well as Node's header record.
    const request = signed(key, spaceDelivery());
    assert.equal((await verifier.verify({ headers: new Headers(request.headers), rawBody: request.rawBody.toString('utf8') })).envelope.id, spaceDelivery().id);

    assert.equal(state.fetches, 1, 'the key set is fetched once and kept');
  });

  it('tolerates five minutes of clock difference either way, and no more', async () => {
    const key = newKey();
    const { verifier } = setup([key]);
    await verifier.verify(signed(key, spaceDelivery(), { timestamp: NOW_S - 300 }));
    await verifier.verify(signed(key, spaceDelivery(), { timestamp: NOW_S + 300 }));
    await refusal(verifier.verify(signed(key, spaceDelivery(), { timestamp: NOW_S - 301 })), 'stale_timestamp');
    await refusal(verifier.verify(signed(key, spaceDelivery(), { timestamp: NOW_S + 301 })), 'stale_timestamp');

    const strict = setup([key], { toleranceSeconds: 10 }).verifier;
    await refusal(strict.verify(signed(key, spaceDelivery(), { timestamp: NOW_S - 11 })), 'stale_timestamp');
  });

  it('refuses a signature that does not hold: another body, another timestamp, another key under the same kid', async () => {
    const key = newKey();
    const impostor = newKey();
    const { verifier } = setup([key]);

    const tampered = signed(key, spaceDelivery());
    tampered.rawBody = Buffer.from(tampered.rawBody.toString('utf8').replace('"through":14', '"through":15'));
    await refusal(verifier.verify(tampered), 'bad_signature');

    const retimed = signed(key, spaceDelivery());
    retimed.headers['webhook-timestamp'] = String(NOW_S - 1);
    await refusal(verifier.verify(retimed), 'bad_signature');

    await refusal(verifier.verify(signed(impostor, spaceDelivery(), { kid: key.jwk.kid })), 'bad_signature');

    const flipped = signed(key, spaceDelivery());
    const sig = flipped.headers['webhook-signature']!;
    flipped.headers['webhook-signature'] = `v1=${sig[3] === 'A' ? 'B' : 'A'}${sig.slice(4)}`;
    await refusal(verifier.verify(flipped), 'bad_signature');
  });

  it('refuses a key that is not in the set, after fetching the set once more', async () => {
    const key = newKey();
    const stranger = newKey();
    const { verifier, state } = setup([key]);
    await verifier.verify(signed(key, spaceDelivery()));
    assert.equal(state.fetches, 1);

    state.now += 31_000;
    const err = await refusal(verifier.verify(signed(stranger, spaceDelivery({}), { timestamp: state.now / 1000 })), 'unknown_key');
    assert.equal(err.retryable, false);
    assert.equal(state.fetches, 2);
  });

  it('follows a rotation: an unknown kid fetches the set again, once, and the new key is kept', async () => {
    const old = newKey();
    const rotated = newKey();
    const { verifier, state } = setup([old]);
    await verifier.verify(signed(old, spaceDelivery()));

    state.now += 60_000;
    state.keys = [rotated.jwk, { ...old.jwk, status: 'retiring' }];
    const ts = state.now / 1000;
    assert.equal((await verifier.verify(signed(rotated, spaceDelivery(), { timestamp: ts }))).keyId, rotated.jwk.kid);
    assert.equal(state.fetches, 2);
    await verifier.verify(signed(rotated, spaceDelivery(), { timestamp: ts }));
    await verifier.verify(signed(old, spaceDelivery(), { timestamp: ts }));
    assert.equal(state.fetches, 2, 'known keys fetch nothing');
  });

  it('fetches again for unknown kids at most once per cooldown, saying the refusal may pass later', async () => {
    const key = newKey();
    const rotated = newKey();
    const { verifier, state } = setup([key]);
    await verifier.verify(signed(key, spaceDelivery()));
    state.keys = [rotated.jwk, key.jwk];

    state.now += 29_000;
    const early = await refusal(verifier.verify(signed(rotated, spaceDelivery(), { timestamp: state.now / 1000 })), 'unknown_key');
    assert.equal(early.retryable, true);
    assert.equal(state.fetches, 1, 'within the cooldown nothing is fetched');

    state.now += 2_000;
    await verifier.verify(signed(rotated, spaceDelivery(), { timestamp: state.now / 1000 }));
    assert.equal(state.fetches, 2);
  });

  it('fetches a set older than its maximum age again before use', async () => {
    const key = newKey();
    const { verifier, state } = setup([key], { cacheMaxAgeSeconds: 60 });
    await verifier.verify(signed(key, spaceDelivery()));
    state.now += 61_000;
    state.keys = [];
    await refusal(verifier.verify(signed(key, spaceDelivery(), { timestamp: state.now / 1000 })), 'unknown_key');
    assert.equal(state.fetches, 2, 'one fetch for the age; the kid still unknown in a set just fetched fetches nothing more');
  });

  it('shares one fetch among requests that arrive together', async () => {
    const key = newKey();
    const { verifier, state } = setup([key]);
    await Promise.all([1, 2, 3].map(() => verifier.verify(signed(key, spaceDelivery()))));
    assert.equal(state.fetches, 1);
  });

  it('says the key set is unavailable, retryably, when it cannot be fetched', async () => {
    const key = newKey();
    const { verifier, state } = setup([key]);
    state.fail = true;
    const err = await refusal(verifier.verify(signed(key, spaceDelivery())), 'keys_unavailable');
    assert.equal(err.retryable, true);
    state.fail = false;
    await verifier.verify(signed(key, spaceDelivery()));
  });

  it('trusts only Ed25519 keys named by their own thumbprint', async () => {
    const key = newKey();
    const other = newKey();
    // The set names `other`'s public key with `key`'s kid: signatures by `other` must not pass as `key`'s.
    const { verifier } = setup([{ jwk: { ...key.jwk, x: other.jwk.x }, privateKey: key.privateKey }]);
    await refusal(verifier.verify(signed(other, spaceDelivery(), { kid: key.jwk.kid })), 'unknown_key');

    const wrongAlg = setup([{ jwk: { ...key.jwk, alg: 'ES256' }, privateKey: key.privateKey }]).verifier;
    await refusal(wrongAlg.verify(signed(key, spaceDelivery())), 'unknown_key');
  });

  it('refuses another issuer', async () => {
    const key = newKey();
    const { verifier } = setup([key]);
    await refusal(verifier.verify(signed(key, spaceDelivery({ issuer: 'https://evil.example.org' }))), 'wrong_issuer');
    await refusal(verifier.verify(signed(key, spaceDelivery({ issuer: `${ISSUER}/` }))), 'wrong_issuer');
    await refusal(verifier.verify(signed(key, { ...challenge(), issuer: 'https://evil.example.org' })), 'wrong_issuer');
  });

  it('refuses a body whose id is not Webhook-Id', async () => {
    const key = newKey();
    const { verifier } = setup([key]);
    await refusal(verifier.verify(signed(key, spaceDelivery(), { id: 'whd_someotherdelivery' })), 'id_mismatch');
  });

  it('refuses types it does not know or was told not to accept', async () => {
    const key = newKey();
    const { verifier } = setup([key]);
    await refusal(verifier.verify(signed(key, spaceDelivery({ type: 'atrium.something.else' }))), 'wrong_type');
    const spaceOnly = setup([key], { types: ['atrium.events.available'] }).verifier;
    await spaceOnly.verify(signed(key, spaceDelivery()));
    await refusal(spaceOnly.verify(signed(key, inboxDelivery())), 'wrong_type');
    await refusal(spaceOnly.verify(signed(key, challenge())), 'wrong_type');
  });

  it('refuses a delivery for another subscription, and checks none without one configured', async () => {
    const key = newKey();
    const { verifier } = setup([key]);
    await refusal(verifier.verify(signed(key, spaceDelivery({ subscription_id: 'whsub_bbbbbbbbbbbbbbbbbbbbbbbbbb' }))), 'wrong_subscription');
    await refusal(verifier.verify(signed(key, inboxDelivery({ subscription_id: 'whsub_bbbbbbbbbbbbbbbbbbbbbbbbbb' }))), 'wrong_subscription');
    const any = setup([key], { subscriptionId: undefined }).verifier;
    await any.verify(signed(key, spaceDelivery({ subscription_id: 'whsub_bbbbbbbbbbbbbbbbbbbbbbbbbb' })));
  });

  it('refuses a challenge for another endpoint, or naming none, once told its endpoint; deliveries are left to the other checks', async () => {
    const key = newKey();
    const { verifier } = setup([key], { endpointId: ENDPOINT });
    const accepted = await verifier.verify(signed(key, challenge()));
    assert.equal(accepted.envelope.type, 'atrium.webhook.challenge');
    const other = await refusal(verifier.verify(signed(key, { ...challenge(), challenge: `${OTHER_ENDPOINT}.c2lnbmVkIGNoYWxsZW5nZSB2YWx1ZQ` })), 'wrong_endpoint');
    assert.equal(other.message, `the challenge is for endpoint ${OTHER_ENDPOINT}, not ${ENDPOINT}`);
    assert.equal(other.retryable, false);
    await refusal(verifier.verify(signed(key, { ...challenge(), challenge: 'c2lnbmVkIGNoYWxsZW5nZSB2YWx1ZQ' })), 'wrong_endpoint');
    await verifier.verify(signed(key, spaceDelivery()));
    // Without an endpoint configured, any challenge verifies: the receiver decides.
    await setup([key]).verifier.verify(signed(key, { ...challenge(), challenge: `${OTHER_ENDPOINT}.c2lnbmVk` }));
  });

  it('reads the endpoint a challenge names, or none', () => {
    assert.equal(challengeEndpointId(`${ENDPOINT}.Ab3_-x`), ENDPOINT);
    for (const value of ['c2lnbmVkIGNoYWxsZW5nZSB2YWx1ZQ', `${ENDPOINT}.`, 'whep_.c2lnbmVk', `${ENDPOINT}.a.b`, `x${ENDPOINT}.c2lnbmVk`]) {
      assert.equal(challengeEndpointId(value), undefined, value);
    }
  });

  it('refuses malformed requests: headers missing or ill-formed, bodies that are not envelopes', async () => {
    const key = newKey();
    const { verifier, state } = setup([key]);

    for (const name of ['webhook-id', 'webhook-key-id', 'webhook-timestamp', 'webhook-signature']) {
      const request = signed(key, spaceDelivery());
      delete request.headers[name];
      await refusal(verifier.verify(request), 'malformed');
    }
    const notSeconds = signed(key, spaceDelivery());
    notSeconds.headers['webhook-timestamp'] = new Date(NOW).toISOString();
    await refusal(verifier.verify(notSeconds), 'malformed');
    const otherScheme = signed(key, spaceDelivery());
    otherScheme.headers['webhook-signature'] = otherScheme.headers['webhook-signature']!.replace('v1=', 'v2=');
    await refusal(verifier.verify(otherScheme), 'malformed');
    const padded = signed(key, spaceDelivery());
    padded.headers['webhook-signature'] += '==';
    await refusal(verifier.verify(padded), 'malformed');
    const twice = signed(key, spaceDelivery());
    await refusal(verifier.verify({ headers: { ...twice.headers, 'webhook-id': ['whd_a', 'whd_b'] }, rawBody: twice.rawBody }), 'malformed');
    assert.equal(state.fetches, 0, 'ill-formed headers are refused before any key is fetched');

    await refusal(verifier.verify(signed(key, 'not json', { id: 'whd_x' })), 'malformed');
    await refusal(verifier.verify(signed(key, '[1,2]', { id: 'whd_x' })), 'malformed');
    await refusal(verifier.verify(signed(key, spaceDelivery({ spec_version: 'atrium.webhooks/2' }))), 'malformed');
    await refusal(verifier.verify(signed(key, spaceDelivery({ event_range: { after: 15, through: 14 } }))), 'malformed');
    await refusal(verifier.verify(signed(key, spaceDelivery({ event_range: { after: -1, through: 14 } }))), 'malformed');
    await refusal(verifier.verify(signed(key, spaceDelivery({ event_range: { after: '10', through: 14 } }))), 'malformed');
    await refusal(verifier.verify(signed(key, spaceDelivery({ subscription_version: 1.5 }))), 'malformed');
    await refusal(verifier.verify(signed(key, spaceDelivery({ space: undefined }))), 'malformed');
    await refusal(verifier.verify(signed(key, { ...inboxDelivery(), space: 'plaza' })), 'malformed');
    await refusal(verifier.verify(signed(key, { ...challenge(), challenge: 42 })), 'malformed');
  });
});
