import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

const b64url = (b: Buffer | Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();

/** The authenticator data's flags (WebAuthn §6.1). */
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

/** What the authenticator does differently from a well-behaved one, to test each refusal. */
export type Quirks = { verifyUser?: boolean; origin?: string; rpId?: string; counter?: number };

/**
 * A passkey authenticator in software: an ES256 key pair made with node:crypto, attestation `none`,
 * and the authenticator data, client data and signatures written here byte by byte (WebAuthn Level 3),
 * so the server's verification runs for real. One credential; its counter goes up by one per assertion
 * unless told otherwise (`counter: 0` for a synced passkey that keeps none).
 */
export function softwareAuthenticator(origin: string, opts: { synced?: boolean; counter?: number } = {}) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credentialId = randomBytes(32);
  let counter = opts.counter ?? 1;
  let userHandle: string | undefined;
  const flags = (extra: number, q: Quirks) =>
    UP | (q.verifyUser === false ? 0 : UV) | (opts.synced ? BE | BS : 0) | extra;
  const counterBytes = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const clientData = (type: string, challenge: string, q: Quirks) =>
    Buffer.from(JSON.stringify({ type, challenge, origin: q.origin ?? origin, crossOrigin: false }));

  return {
    credentialId: b64url(credentialId),

    /** Answers `navigator.credentials.create()` with these options. */
    register(options: PublicKeyCredentialCreationOptionsJSON, q: Quirks = {}): RegistrationResponseJSON {
      userHandle = options.user.id;
      const jwk = publicKey.export({ format: 'jwk' });
      const cose = isoCBOR.encode(
        new Map<number, number | Uint8Array>([
          [1, 2], // kty: EC2
          [3, -7], // alg: ES256
          [-1, 1], // crv: P-256
          [-2, Buffer.from(jwk.x!, 'base64url')],
          [-3, Buffer.from(jwk.y!, 'base64url')],
        ]),
      );
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([
        sha256(q.rpId ?? options.rp.id!),
        Buffer.from([flags(AT, q)]),
        counterBytes(q.counter ?? counter),
        Buffer.alloc(16), // aaguid: none
        idLength,
        credentialId,
        Buffer.from(cose),
      ]);
      const attestationObject = isoCBOR.encode(
        new Map<string, string | Map<string, never> | Uint8Array>([
          ['fmt', 'none'],
          ['attStmt', new Map<string, never>()],
          ['authData', authData],
        ]),
      );
      return {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        response: {
          clientDataJSON: b64url(clientData('webauthn.create', options.challenge, q)),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        type: 'public-key',
      };
    },

    /** Answers `navigator.credentials.get()` with these options, signing with its private key. */
    assert(options: PublicKeyCredentialRequestOptionsJSON, q: Quirks = {}): AuthenticationResponseJSON {
      counter = q.counter ?? (counter === 0 ? 0 : counter + 1);
      const authData = Buffer.concat([
        sha256(q.rpId ?? options.rpId!),
        Buffer.from([flags(0, q)]),
        counterBytes(counter),
      ]);
      const clientDataJSON = clientData('webauthn.get', options.challenge, q);
      const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey);
      return {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
          ...(userHandle && { userHandle }),
        },
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        type: 'public-key',
      };
    },
  };
}
