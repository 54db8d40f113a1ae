import * as yup from 'yup';
import { describe } from '../kernel/json-schema';
import {
  arrayOf,
  dateTime,
  integer,
  nullable,
  object,
  oneOf,
  openObject,
  string,
  uuid,
} from '../kernel/shapes';
import { DECIDED_VIA } from './entities';
import { APPROVAL_STATUSES } from './views';

const SHA256 = string({ pattern: '^[0-9a-f]{64}$', maxLength: 64 });

/** An approval request as every door answers it. */
export const APPROVAL_FIELDS = {
  id: uuid,
  status: oneOf(APPROVAL_STATUSES),
  operation: string(),
  summary: string(),
  // What the call will do, taken as it parked (kernel/effect.ts); null for requests parked before snapshots.
  effect: nullable(
    object(
      {
        bound: openObject(
          "The named parts that must be the same when the approved call runs, as they stood (a campaign's steps and audience, an agent's review_level and limits).",
        ),
        counted: {
          type: 'object',
          additionalProperties: integer({ minimum: 0 }),
          description: "What was counted as it parked, shown but not bound (the audience's size then).",
        },
        shown: openObject('What the approver also reads that follows from the input and the bound parts.'),
        members: {
          type: 'object',
          additionalProperties: object({ count: integer({ minimum: 0 }), digest: SHA256 }),
          description:
            "Whom it reaches, counted as it parked (a campaign's audience: its leads), by count and the SHA-256 of their ids: the approved run reaches only these, those that still qualify.",
        },
        digest: { ...SHA256, description: 'SHA-256 of the bound parts.' },
      },
      { optional: ['counted', 'shown', 'members'] },
    ),
  ),
  requested_by: object({ key_id: uuid, user_id: uuid }),
  decided_by: nullable(uuid),
  decided_at: nullable(dateTime),
  decided_via: nullable({
    ...oneOf(DECIDED_VIA),
    description:
      "How it was decided: passkey (the member decided in the console, signing with their passkey) or operator (an operator at the admin CLI asserted it in the member's name: operator-asserted, not proven); null until decided, and for decisions recorded before this was kept.",
  }),
  decided_credential: nullable(
    string({ maxLength: 1366, description: 'The id of the passkey that signed the decision (passkey).' }),
  ),
  decided_digest: nullable({
    ...SHA256,
    description: 'The snapshot digest the member signed for (passkey).',
  }),
  operator_asserted: nullable({
    ...object({ os_user: string(), host: string() }),
    description:
      'Operator-asserted (operator): the operating system user and host that sent the decision from the admin CLI.',
  }),
  reason: nullable(string()),
  outcome: nullable(
    openObject("What the approved call answered (EXECUTED): the operation's own answer; null until then."),
  ),
  error: nullable(
    object(
      {
        code: string(),
        message: string(),
        field: string(),
        refused_by: oneOf(['gate']),
        changed: arrayOf(string()),
      },
      { optional: ['field', 'refused_by', 'changed'] },
    ),
  ),
  expires_at: dateTime,
  created_at: dateTime,
  finished_at: nullable(dateTime),
};
export const APPROVAL = object(APPROVAL_FIELDS, { title: 'ApprovalRequest' });

/** The id a caller names a request by. */
export const approvalId = describe(
  yup.string().uuid('${path} must be a UUID').required('${path} is required'),
  'The approval_id a gated call answered with.',
);

/** A snapshot's digest, as a request's `effect.digest` gives it. */
export const snapshotDigest = describe(
  yup
    .string()
    .required('${path} is required')
    .matches(/^[0-9a-f]{64}$/, '${path} must be a SHA-256 digest: 64 lowercase hex digits'),
  "The request's snapshot digest (`effect.digest`) the member was shown and signed for.",
);

const base64url = (max: number, description: string) =>
  describe(
    yup
      .string()
      .required('${path} is required')
      .matches(/^[A-Za-z0-9_-]+$/, '${path} must be base64url')
      .max(max, `\${path} must be at most ${max} characters`),
    description,
  );

/**
 * A WebAuthn assertion as the browser sent it (`AuthenticationResponseJSON`), kept as the evidence of a
 * member's decision. Its signature is checked by the console before the decision is handed over; here
 * it is only held to its shape and size.
 */
export const signedAssertion = describe(
  yup
    .object({
      id: base64url(1366, "The passkey's credential id."),
      rawId: base64url(1366, 'The credential id, as raw bytes in base64url.'),
      type: describe(
        yup.string().required('${path} is required').oneOf(['public-key'], '${path} must be public-key'),
        'Always public-key.',
      ),
      response: describe(
        yup
          .object({
            clientDataJSON: base64url(
              4096,
              'The client data the authenticator signed over (its challenge binds the request and digest).',
            ),
            authenticatorData: base64url(
              4096,
              'The authenticator data (flags: user present and verified; the counter).',
            ),
            // Post-quantum passkeys sign with ML-DSA: @simplewebauthn offers ML-DSA-44 first where the
            // runtime has it (Node 24), and Chromium takes it; its 2,420-byte signature is 3,227 characters
            // (ML-DSA-87's, the largest, 6,170), where ES256's is about 96.
            signature: base64url(8192, 'The signature over the authenticator data and the client data hash.'),
            userHandle: describe(
              yup
                .string()
                .matches(/^[A-Za-z0-9_-]*$/, '${path} must be base64url')
                .max(128),
              "The user handle of a discoverable credential: the member's id as the passkey knows it.",
            ),
          })
          .noUnknown(
            true,
            (p: { unknown: string }) => `${p.unknown} is not a field of an assertion's response`,
          )
          .default(undefined)
          .required('${path} is required'),
        "The authenticator's response.",
      ),
      authenticatorAttachment: describe(
        yup.string().oneOf(['platform', 'cross-platform'], '${path} must be platform or cross-platform'),
        'Where the authenticator sits, as the browser reported it.',
      ),
      clientExtensionResults: describe(yup.object(), 'Extension results, as the browser reported them.'),
    })
    .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a field of an assertion`)
    .default(undefined)
    .required('${path} is required'),
  'The signed WebAuthn assertion exactly as the browser sent it (AuthenticationResponseJSON).',
);
