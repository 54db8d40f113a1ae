import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { ENDPOINT_CHANGE, lockEndpoint } from '../endpoint-changes';
import { endpointsIn } from '../repository/endpoints';
import { endpointIdField, schemeField } from '../schemas';
import { encryptSecret, generateSigningSecret } from '../secrets';
import { ENDPOINT, endpointView } from '../views';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest a replaced secret keeps signing beside the new one (as at Stripe). */
const MAX_OVERLAP_MS = 7 * UNIT_MS.d;
/** `0`, or a whole number of seconds, minutes, hours or days (`90s`, `30m`, `24h`, `7d`), at most 7 days. */
function overlapMs(text: string): number | undefined {
  if (text === '0') return 0;
  const m = /^(\d{1,7})([smhd])$/.exec(text);
  const ms = m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : undefined;
  return ms !== undefined && ms <= MAX_OVERLAP_MS ? ms : undefined;
}
const overlap = describe(
  yup
    .string()
    .trim()
    .optional()
    .test(
      'overlap',
      'overlap must be 0 or a duration such as 90s, 30m, 24h or 7d, at most 7d',
      (v) => v === undefined || overlapMs(v) !== undefined,
    ),
  'How long the old secret keeps signing beside the new one: 0 (the default: it stops at once), or a duration such as 90s, 30m, 24h, up to 7d.',
);

/**
 * A new secret, shown once. With an overlap the old one keeps signing beside it until then (each
 * delivery carries both signatures), so receivers can switch in their own time; a second rotation
 * during an overlap ends the oldest secret at once. The reconciler destroys the old one after.
 */
export const rotateEndpointSecret = defineOperation({
  ...ENDPOINT_CHANGE,
  name: 'endpoint.rotate_secret',
  title: "Rotate an endpoint's signing secret",
  description:
    'Issues a new signing secret. With overlap, the old one also signs every delivery until the overlap ends; without, it stops at once. Can switch the signing scheme in the same step.',
  returns: 'The endpoint and, this once, the new secret (`secret`).',
  destructive: true,
  input: yup.object({ id: endpointIdField, overlap, scheme: schemeField }),
  output: ENDPOINT,
  doors: {
    admin: {
      command: 'endpoint rotate-secret',
      flags: (f) => ({ id: f.id, overlap: f.overlap, scheme: f.scheme }),
    },
    console: true,
  },
  summary: (i) =>
    `Rotate the signing secret of endpoint ${i.id}` +
    (i.overlap && i.overlap !== '0' ? `, the old one signing for ${i.overlap} more` : ', at once') +
    (i.scheme ? `, signing by ${i.scheme}` : ''),
  run: async (ctx, f) => {
    const key = ctx.services.webhooks.secretsKey;
    await lockEndpoint(ctx, f.id);
    const ms = overlapMs(f.overlap ?? '0')!;
    const now = ctx.services.clock?.() ?? new Date();
    const old = ms > 0 ? await endpointsIn(ctx.data).secretOf(f.id) : undefined;
    const secret = generateSigningSecret();
    const row = await endpointsIn(ctx.data).change(f.id, {
      secret_ciphertext: encryptSecret(secret, key),
      previous_secret_ciphertext: old ?? null,
      previous_secret_expires_at: old ? new Date(now.getTime() + ms) : null,
      ...(f.scheme ? { signing_scheme: f.scheme } : {}),
    });
    ctx.audit(row.workspace_id, { endpoint_id: f.id, overlap_ms: ms, scheme: row.signing_scheme });
    return { ...endpointView(row), secret };
  },
});
