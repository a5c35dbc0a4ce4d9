import { Type } from '@sinclair/typebox';
import type { AppContext } from '../app-context.js';
import { sendInBackground } from '../mail/delivery.js';
import { signInMail } from '../mail/sign-in-mail.js';
import { memberView, MemberRef } from '../members/schemas.js';
import { defineOperation, type AnyOperation } from '../operations/operation.js';
import type { Tag } from '../operations/tags.js';
import { requireActiveMember } from '../roles/authority.js';
import { forbidden, unauthenticated } from '../shared/errors.js';
import { listApiCredentials, revokeApiCredential } from './api-credentials.js';
import { requireSession } from './authority.js';
import { addHuman, signUp } from './humans.js';
import {
  ApiCredentialSchema,
  CredentialParams,
  NewHumanBody,
  SentSchema,
  SignedInSchema,
  SignInEmailBody,
  SignInVerifyBody,
} from './schemas.js';
import { revokeSession } from './sessions.js';
import { issueSignInCode, SIGN_IN_CODE_LIFETIME_MS, verifySignInCode, type IssuedCode } from './sign-in.js';

const TAG: Tag = 'Identity';
const ANYONE = { anonymous: true, schemes: [] };
const SESSION_ONLY = { anonymous: false, schemes: ['session' as const] };

/** Mails a code after the transaction that stored its digest has committed. */
function mailCode(ctx: AppContext, issued: IssuedCode | undefined, existingAccount = false): void {
  if (!issued) return;
  const message = signInMail({
    to: issued.email,
    handle: issued.handle,
    code: issued.code,
    baseUrl: ctx.config.baseUrl,
    validMinutes: SIGN_IN_CODE_LIFETIME_MS / 60_000,
    existingAccount,
  });
  sendInBackground(ctx.mailer, ctx.log, message);
}

export const createHumanOperation = defineOperation({
  name: 'create_human',
  who: 'host_owners',
  method: 'POST',
  path: '/v0/humans',
  tag: TAG,
  summary: 'Add a human member',
  description:
    'Steward key, or a signed-in human with a host-wide `owner` assignment (API keys are refused). ' +
    'The human is `active` with `email_verified: false` until they sign in with a code sent to the address.',
  auth: { anonymous: false, schemes: ['session', 'steward_key'] },
  body: NewHumanBody,
  bodyRequired: true,
  success: { status: 201, description: 'The new member, with its address.', schema: MemberRef },
  errors: [401, 403, 409],
  handler: async ({ body, actor, ctx }) => {
    const member = await ctx.db.transaction((tx) => addHuman(tx, actor, body));
    return memberView(member, ctx.config.baseUrl, { private: true });
  },
});

export const signUpOperation = defineOperation({
  name: 'sign_up',
  who: 'anyone',
  method: 'POST',
  path: '/v0/sign-up',
  tag: TAG,
  summary: 'Create your own human account',
  description:
    'Only when the host runs with `ATRIUM_OPEN_SIGNUP=true` (403 otherwise). Creates the human and mails a sign-in code. ' +
    'A taken handle is 409; a taken address is not revealed: its owner is mailed a code for the existing account instead. ' +
    'Codes count toward the same limit as `POST /v0/sign-in/email` (5 per address in 15 minutes; 429 with `Retry-After` beyond).',
  auth: ANYONE,
  body: NewHumanBody,
  bodyRequired: true,
  success: { status: 202, description: 'A sign-in code is on its way.', schema: SentSchema },
  errors: [403, 409, 429],
  notAnMcpTool: 'signing up happens before a client holds a credential; MCP needs one',
  handler: async ({ body, ctx }) => {
    if (!ctx.config.openSignup) {
      throw forbidden('signup_closed', 'open sign-up is off on this host: ask an owner to add you (POST /v0/humans)');
    }
    const result = await ctx.db.transaction((tx) => signUp(tx, body, ctx.addressDigest));
    mailCode(ctx, result, result?.existingAccount);
    return { status: 'sent' as const };
  },
});

export const requestSignInCode = defineOperation({
  name: 'request_sign_in_code',
  who: 'anyone',
  method: 'POST',
  path: '/v0/sign-in/email',
  tag: TAG,
  summary: 'Mail a one-time sign-in code',
  description:
    'Answers 202 `{status: "sent"}` whether or not the address has an account. A code lives 10 minutes, ' +
    'works once, is burned after 5 wrong tries, and replaces any earlier code for the address. ' +
    'At most 5 codes may be asked for one address in 15 minutes, with an account or without: beyond that the answer is 429 ' +
    '(`rate_limited`, nothing sent) with `Retry-After`, the seconds until the next ask will be taken.',
  auth: ANYONE,
  body: SignInEmailBody,
  bodyRequired: true,
  success: { status: 202, description: 'If the address belongs to an active human, a code is on its way.', schema: SentSchema },
  errors: [429],
  notAnMcpTool: 'signing in is for people in a browser or the CLI; an MCP client already holds its credential',
  handler: async ({ body, ctx }) => {
    const issued = await ctx.db.transaction((tx) => issueSignInCode(tx, body.email, ctx.addressDigest));
    mailCode(ctx, issued);
    return { status: 'sent' as const };
  },
});

export const verifySignIn = defineOperation({
  name: 'verify_sign_in',
  who: 'anyone',
  method: 'POST',
  path: '/v0/sign-in/verify',
  tag: TAG,
  summary: 'Sign in with a mailed code',
  description:
    'Starts a session: answers the token and sets the `atrium_session` cookie (HttpOnly, SameSite=Lax). ' +
    'With `session_token: "cookie"` (a browser page) the answer leaves the token out and the session lives only in the cookie. ' +
    'Marks the address verified. 401 for a wrong, used, burned, replaced or expired code.',
  auth: ANYONE,
  body: SignInVerifyBody,
  bodyRequired: true,
  success: { status: 200, description: 'The new session.', schema: SignedInSchema },
  errors: [401, 403],
  notAnMcpTool: 'it mints a session: a tool must never hand an agent the Owner/Host powers a session carries',
  handler: async ({ body, ctx, response }) => {
    const outcome = await ctx.db.transaction((tx) => verifySignInCode(tx, body.email, body.code));
    // Thrown only now, so that a counted wrong try has committed.
    // Sign-in and activation codes share one shape, so say which is which where one is mistaken for the other.
    if (outcome.kind === 'refused') {
      throw unauthenticated(
        'sign_in_code_invalid',
        'wrong, used or expired sign-in code: ask for a new one. (A code shown by `atrium login` or a client is an activation code: ' +
          'approve it on its activation page instead.)',
      );
    }
    if (outcome.kind === 'suspended') throw forbidden('member_suspended', `member ${outcome.handle} is suspended`);
    response.setSessionCookie(outcome.session.token, outcome.session.expires);
    const member = memberView(outcome.member, ctx.config.baseUrl, { private: true });
    const expires_ts = outcome.session.expires.toISOString();
    // A page's script that never receives the token cannot leak it; the HttpOnly cookie is all a browser needs.
    if (body.session_token === 'cookie') return { member, expires_ts };
    return { token: outcome.session.token, member, expires_ts };
  },
});

export const signOut = defineOperation({
  name: 'sign_out',
  who: 'humans',
  method: 'POST',
  path: '/v0/sign-out',
  tag: TAG,
  summary: 'Sign out',
  description: 'Revokes the presenting session (bearer or cookie) and clears the cookie. API keys are refused.',
  auth: SESSION_ONLY,
  success: { status: 204, description: 'Signed out.' },
  errors: [401, 403],
  notAnMcpTool: 'it would revoke the credential the MCP client itself is configured with',
  handler: async ({ actor, ctx, response }) => {
    const caller = requireSession(actor);
    await ctx.db.transaction((tx) => revokeSession(tx, caller.credential.id));
    response.clearSessionCookie();
  },
});

export const getMe = defineOperation({
  name: 'get_me',
  who: 'members',
  beyondSpaces: 'own',
  method: 'GET',
  path: '/v0/me',
  tag: TAG,
  summary: 'Read your own member record',
  description: 'With the private fields: a human sees their `email` and `email_verified`.',
  auth: { anonymous: false, schemes: ['member_key', 'session'] },
  success: { status: 200, description: 'The caller.', schema: MemberRef },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ actor, ctx }) => memberView(requireActiveMember(actor).member, ctx.config.baseUrl, { private: true }),
});

export const listCredentials = defineOperation({
  name: 'list_credentials',
  who: 'humans',
  method: 'GET',
  path: '/v0/credentials',
  tag: TAG,
  summary: 'List your API credentials',
  description:
    'The credentials client activations minted for you, newest first, revoked ones included. ' +
    'Needs a signed-in session: API keys are refused.',
  auth: SESSION_ONLY,
  success: {
    status: 200,
    description: 'Your API credentials (never the keys themselves).',
    schema: Type.Object({ credentials: Type.Array(ApiCredentialSchema) }, { additionalProperties: false }),
  },
  errors: [401, 403],
  readOnly: true,
  handler: async ({ actor, ctx }) => ({
    credentials: await listApiCredentials(ctx.db.kysely, requireSession(actor).member.handle),
  }),
});

export const revokeCredential = defineOperation({
  name: 'revoke_credential',
  who: 'humans',
  method: 'POST',
  path: '/v0/credentials/{id}/revoke',
  tag: TAG,
  summary: 'Revoke one of your API credentials',
  description:
    'The key is refused from the next request on. Revoking again answers the same record. ' +
    'Needs a signed-in session: API keys are refused. Event `client_credential_revoked`.',
  auth: SESSION_ONLY,
  params: CredentialParams,
  success: { status: 200, description: 'The credential, revoked.', schema: ApiCredentialSchema },
  errors: [401, 403, 404],
  destructive: true,
  idempotent: true,
  handler: async ({ params, actor, ctx }) => {
    const caller = requireSession(actor);
    return ctx.db.transaction((tx) => {
      // Other nodes hear of it from the database; this one forgets at once (docs/identity.md, "Keeping key resolutions").
      tx.afterCommit(() => ctx.memberKeys.forget());
      return revokeApiCredential(tx, caller.member.handle, params.id);
    });
  },
});

/** Humans, sign-in, sessions and API credentials (docs/protocol.md#sessions). */
export const identityOperations: AnyOperation[] = [
  createHumanOperation,
  signUpOperation,
  requestSignInCode,
  verifySignIn,
  signOut,
  getMe,
  listCredentials,
  revokeCredential,
];
