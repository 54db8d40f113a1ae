import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Data } from '../kernel/data';
import { DomainError } from '../kernel/errors';
import { UUID_PATTERN } from '../kernel/validate';
import { fingerprintOf, looksLikeToken } from './bearer-tokens';
import { DEVICE_TYPES, UserEntity, type Passkey } from './entities';
import { sameFingerprint } from './keys';
import { passkeysIn, type StoredPasskey } from './repository/passkeys';
import { challengesIn } from './repository/webauthn-challenges';

/**
 * The WebAuthn library, loaded at its first use: only the API process (the console) meets passkeys, and
 * the worker, which imports this area for its operations, would otherwise hold its few hundred modules.
 */
const webauthn = () => import('@simplewebauthn/server');

/**
 * The relying party WebAuthn binds credentials to: `id` is PUBLIC_URL's hostname (a domain, never an
 * IP), `origin` its origin; `name` is what the browser shows.
 */
export type RelyingParty = { id: string; name: string; origin: string };

/** A passkey as the member's page lists it (never its key). */
export type PasskeyView = {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  deviceType: Passkey['device_type'];
  backedUp: boolean;
  transports: string[];
};

/** How long a browser has to answer a challenge. */
const CHALLENGE_MINUTES = 5;
const CHALLENGE_MS = CHALLENGE_MINUTES * 60_000;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const DEFAULT_NAME = 'Passkey';
const MAX_NAME = 100;

const expiry = (now: Date) => new Date(now.getTime() + CHALLENGE_MS);

/** The user handle a passkey carries: the user's id (no address: an authenticator may show or sync it). */
const userHandle = (userId: string) => new TextEncoder().encode(userId);

/**
 * The challenge a browser's response says it signed (clientDataJSON's), to find its stored row by; the
 * library checks it again against the row's.
 */
function signedChallenge(response: unknown): string | undefined {
  const clientData = (response as { response?: { clientDataJSON?: unknown } } | null)?.response
    ?.clientDataJSON;
  if (typeof clientData !== 'string' || !BASE64URL.test(clientData)) return undefined;
  try {
    const { challenge } = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof challenge === 'string' && BASE64URL.test(challenge) ? challenge : undefined;
  } catch {
    return undefined;
  }
}

const credentialIdOf = (response: unknown): string | undefined => {
  const id = (response as { id?: unknown } | null)?.id;
  return typeof id === 'string' && BASE64URL.test(id) ? id : undefined;
};

const binding = (browserBinding: string) => {
  if (!looksLikeToken(browserBinding))
    throw new DomainError('invalid_request', 'This browser has no sign-in binding.', {
      field: 'browserBinding',
    });
  return fingerprintOf(browserBinding);
};

/**
 * Options for enrolling a passkey for a signed-in (or link-proven) user: discoverable (sign-in asks for
 * no address), with user verification required, none of their passkeys again.
 */
export async function passkeyRegistrationOptions(
  data: Data,
  r: { userId: string; rp: RelyingParty },
  now: Date,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const user = await data.global(UserEntity).findOne({ id: r.userId });
  if (!user) throw new DomainError('not_found', 'No such user.');
  const existing = await passkeysIn(data).of(r.userId);
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: r.rp.name,
    rpID: r.rp.id,
    userName: user.email,
    userID: userHandle(r.userId),
    userDisplayName: user.email,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: {
      residentKey: 'required',
      requireResidentKey: true,
      userVerification: 'required',
    },
  });
  await challengesIn(data).add(
    { purpose: 'register', challenge: options.challenge, user_id: r.userId, expires_at: expiry(now) },
    now,
  );
  return options;
}

/**
 * Verifies a registration answering this user's challenge (once, within five minutes; user verified;
 * this origin and RP ID) and stores the credential: its id, or null (which says nothing of why).
 */
export async function registerPasskey(
  data: Data,
  r: { userId: string; response: unknown; rp: RelyingParty; name: string | null },
  now: Date,
): Promise<{ passkeyId: string } | null> {
  const challenge = signedChallenge(r.response);
  if (!challenge) return null;
  const challenges = challengesIn(data);
  const row = await challenges.named(challenge, 'register');
  if (!row || row.user_id !== r.userId || !(await challenges.use(row.id, now))) return null;
  const { verifyRegistrationResponse } = await webauthn();
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: r.response as RegistrationResponseJSON,
      expectedChallenge: row.challenge,
      expectedOrigin: r.rp.origin,
      expectedRPID: r.rp.id,
      requireUserVerification: true,
    });
  } catch {
    return null;
  }
  if (!verified.verified) return null;
  const info = verified.registrationInfo;
  if (!DEVICE_TYPES.includes(info.credentialDeviceType)) return null;
  const passkeyId = await passkeysIn(data).add({
    user_id: r.userId,
    credential_id: info.credential.id,
    public_key: Buffer.from(info.credential.publicKey),
    sign_count: String(info.credential.counter),
    transports: info.credential.transports ?? [],
    device_type: info.credentialDeviceType,
    backed_up: info.credentialBackedUp,
    name: r.name?.trim().slice(0, MAX_NAME) || DEFAULT_NAME,
  });
  return passkeyId ? { passkeyId } : null;
}

/**
 * Options for signing in with a passkey from this browser (its binding): no credential named, so the
 * authenticator offers the member's discoverable ones and no address is asked for.
 */
export async function passkeySignInOptions(
  data: Data,
  r: { browserBinding: string; rp: RelyingParty },
  now: Date,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const browser = binding(r.browserBinding);
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({ rpID: r.rp.id, userVerification: 'required' });
  await challengesIn(data).add(
    {
      purpose: 'sign_in',
      challenge: options.challenge,
      browser_fingerprint: browser,
      expires_at: expiry(now),
    },
    now,
  );
  return options;
}

/**
 * Verifies an assertion against a stored passkey and records its use: the user is verified, the origin
 * and RP ID are ours, the signature is the credential's over this challenge, the user handle (when
 * given) is the passkey's user, and the counter has not gone back.
 */
async function verifiedUse(
  data: Data,
  passkey: StoredPasskey,
  response: unknown,
  challenge: string,
  rp: RelyingParty,
  now: Date,
): Promise<boolean> {
  const handle = (response as { response?: { userHandle?: unknown } }).response?.userHandle;
  if (
    handle !== undefined &&
    handle !== null &&
    handle !== Buffer.from(userHandle(passkey.user_id)).toString('base64url')
  )
    return false;
  const { verifyAuthenticationResponse } = await webauthn();
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: Number(passkey.sign_count),
        transports: passkey.transports,
      },
      requireUserVerification: true,
    });
  } catch {
    return false;
  }
  return (
    verified.verified &&
    (await passkeysIn(data).used(passkey.id, verified.authenticationInfo.newCounter, now))
  );
}

/**
 * Signs in with a passkey: the assertion must answer a sign-in challenge made for this browser (once,
 * within five minutes) with a member's passkey. The user and passkey it proves, or null (which says
 * nothing of why).
 */
export async function signInWithPasskey(
  data: Data,
  r: { browserBinding: string; response: unknown; rp: RelyingParty },
  now: Date,
): Promise<{ userId: string; passkeyId: string } | null> {
  const challenge = signedChallenge(r.response);
  const credentialId = credentialIdOf(r.response);
  if (!challenge || !credentialId || !looksLikeToken(r.browserBinding)) return null;
  const challenges = challengesIn(data);
  const row = await challenges.named(challenge, 'sign_in');
  if (
    !row?.browser_fingerprint ||
    !sameFingerprint(row.browser_fingerprint, fingerprintOf(r.browserBinding)) ||
    !(await challenges.use(row.id, now))
  )
    return null;
  const passkey = await passkeysIn(data).byCredential(credentialId);
  if (!passkey || !(await verifiedUse(data, passkey, r.response, row.challenge, r.rp, now))) return null;
  return { userId: passkey.user_id, passkeyId: passkey.id };
}

/** A user's passkeys, oldest first. */
export async function passkeysOf(data: Data, userId: string): Promise<PasskeyView[]> {
  return (await passkeysIn(data).of(userId)).map((p) => ({
    id: p.id,
    name: p.name,
    createdAt: p.created_at,
    lastUsedAt: p.last_used_at,
    deviceType: p.device_type,
    backedUp: p.backed_up,
    transports: p.transports,
  }));
}

/**
 * An assertion as the browser sent it, its signed parts only (what an approval keeps as proof: anyone
 * holding the credential's public key can check the signature over authenticatorData and the hash of
 * clientDataJSON, whose challenge names the approval and digest).
 */
export type SignedAssertion = {
  id: string;
  rawId: string;
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
  type: 'public-key';
};

/** The signed parts of a verified assertion, nothing else a browser (or a forger) added. */
const signedParts = (response: unknown): SignedAssertion => {
  const a = response as AuthenticationResponseJSON;
  return {
    id: a.id,
    rawId: a.rawId,
    response: {
      clientDataJSON: a.response.clientDataJSON,
      authenticatorData: a.response.authenticatorData,
      signature: a.response.signature,
      ...(a.response.userHandle && { userHandle: a.response.userHandle }),
    },
    type: 'public-key',
  };
};

/** What a member decides with a passkey: the signature says which, so it cannot be used for the other. */
type DecisionKind = 'approve' | 'reject';

/**
 * A decision's challenge: base64url(SHA-256(nonce ‖ approval id ‖ snapshot digest ‖ decision)). An
 * assertion over it can only be this decision on this approval as it stood at this digest (an approval
 * signed cannot stand for a rejection, nor the other way); the nonce makes each one new.
 */
const decisionChallengeOf = (nonce: Buffer, approvalId: string, digest: string, decision: DecisionKind) =>
  createHash('sha256')
    .update(nonce)
    .update(approvalId, 'utf8')
    .update(digest, 'utf8')
    .update(decision, 'utf8')
    .digest();

/**
 * Options for a member's passkey assertion deciding an approval as it stands (`digest`: its snapshot's),
 * from their session: the challenge is bound to the approval, the digest and the decision
 * (`decisionChallengeOf`), stored with the first two, usable once within five minutes; only this user's
 * passkeys are asked for.
 */
export async function decisionChallenge(
  data: Data,
  d: {
    userId: string;
    sessionId: string | null;
    approvalId: string;
    digest: string;
    decision: DecisionKind;
  },
  rp: RelyingParty,
  now: Date,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  if (!UUID_PATTERN.test(d.approvalId)) throw new DomainError('not_found', 'No such approval request.');
  const nonce = randomBytes(32);
  const passkeys = await passkeysIn(data).of(d.userId);
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: 'required',
    allowCredentials: passkeys.map((p) => ({ id: p.credential_id, transports: p.transports })),
    challenge: new Uint8Array(decisionChallengeOf(nonce, d.approvalId, d.digest, d.decision)),
  });
  await challengesIn(data).add(
    {
      purpose: 'decision',
      challenge: options.challenge,
      nonce,
      user_id: d.userId,
      session_id: d.sessionId,
      approval_id: d.approvalId,
      digest: d.digest,
      expires_at: expiry(now),
    },
    now,
  );
  return options;
}

/**
 * Verifies a member's assertion deciding an approval: it must answer a decision challenge made for this
 * user, this approval, this digest and this decision (derived again from its nonce), unused and within
 * five minutes, with one of this user's passkeys. What the approval records (the credential, the passkey
 * and the assertion as the browser sent it), or null.
 */
export async function verifyDecisionAssertion(
  data: Data,
  d: {
    userId: string;
    approvalId: string;
    digest: string;
    decision: DecisionKind;
    response: unknown;
    rp: RelyingParty;
  },
  now: Date,
): Promise<{ credentialId: string; passkeyId: string; assertion: SignedAssertion } | null> {
  const challenge = signedChallenge(d.response);
  const credentialId = credentialIdOf(d.response);
  if (!challenge || !credentialId) return null;
  const challenges = challengesIn(data);
  const row = await challenges.named(challenge, 'decision');
  if (!row?.nonce || row.user_id !== d.userId || row.approval_id !== d.approvalId || row.digest !== d.digest)
    return null;
  const expected = decisionChallengeOf(row.nonce, d.approvalId, d.digest, d.decision);
  const presented = Buffer.from(challenge, 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return null;
  if (!(await challenges.use(row.id, now))) return null;
  const passkey = await passkeysIn(data).byCredential(credentialId, d.userId);
  if (!passkey || !(await verifiedUse(data, passkey, d.response, row.challenge, d.rp, now))) return null;
  return { credentialId: passkey.credential_id, passkeyId: passkey.id, assertion: signedParts(d.response) };
}
