import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { notFound } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { nullable, object, string } from '../../kernel/shapes';
import { EMAIL_PATTERN, maxChars } from '../../kernel/validate';
import { workspacesIn } from '../repository/workspaces';
import {
  MAX_ADDRESS_LINES,
  SELLER_PROFILE_LIMITS,
  changedProfile,
  isAddress,
  isHttpsUrl,
  isOneLine,
  isPhone,
  isText,
  saveSellerProfile,
  sellerProfileOf,
  type SellerProfile,
} from '../seller-profile';

/** A profile setting: trimmed text within its limit, passing `rule`; empty clears it, absent keeps it. */
function setting(
  field: keyof SellerProfile,
  description: string,
  rule: { test: (v: string) => boolean; message: string },
) {
  const max = SELLER_PROFILE_LIMITS[field];
  return describe(
    yup
      .string()
      .typeError(`${field} must be text`)
      .trim()
      .test(maxChars(max, `${field} can be at most ${max} characters`))
      .test(field, rule.message, (v) => !v || rule.test(v))
      .optional(),
    description,
  );
}

const PROFILE = object(
  {
    name: nullable(string()),
    address: nullable(string()),
    email: nullable(string()),
    phone: nullable(string()),
    terms_url: nullable(string()),
    terms_text: nullable(string()),
  },
  { title: 'SellerProfile' },
);

/** A line break in a flag's text, where a shell makes a real one awkward. */
const lines = (v: string | undefined) => v?.replace(/\\n/g, '\n');

/** What the workspace's quote pages say of the seller (seller-profile.ts). */
export const setSellerProfile = defineOperation({
  name: 'workspace.set_seller_profile',
  title: "Set the seller's details on quotes",
  description:
    "Sets what the workspace's quote pages show of the seller: name (the workspace's name when empty), postal address, email, phone, and the terms a quote is accepted under, as an https link or a text (setting one clears the other). What is not given keeps its value; an empty value clears it.",
  returns: 'The seller profile now in force.',
  requirement: { scope: 'business:write', minRole: 'admin' },
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup
    .object({
      name: setting('name', 'The legal or trading name the customer deals with.', {
        test: isOneLine,
        message: 'name must be one line of text',
      }),
      address: setting(
        'address',
        `The postal address, a line each (at most ${MAX_ADDRESS_LINES}; in a flag, \\n breaks a line).`,
        { test: isAddress, message: `address must be text of at most ${MAX_ADDRESS_LINES} lines` },
      ),
      email: setting('email', 'The address the customer writes to.', {
        test: (v) => EMAIL_PATTERN.test(v),
        message: 'email must be an email address',
      }),
      phone: setting('phone', 'The number the customer calls, as it should read (+33 1 23 45 67 89).', {
        test: isPhone,
        message: 'phone must be a phone number: digits, spaces, dots, dashes, brackets and a leading +',
      }),
      terms_url: setting('terms_url', 'A link to the terms (https).', {
        test: isHttpsUrl,
        message: 'terms_url must be an https:// link',
      }),
      terms_text: setting(
        'terms_text',
        'The terms as text; a blank line parts paragraphs (in a flag, \\n breaks a line).',
        {
          test: isText,
          message: 'terms_text must be text without control characters',
        },
      ),
    })
    .test('terms', 'terms_url and terms_text cannot both be given', function (v) {
      return v?.terms_url && v?.terms_text
        ? this.createError({
            path: 'terms_text',
            message: 'give terms_url or terms_text, not both: the terms are a link or a text',
          })
        : true;
    }),
  output: PROFILE,
  doors: {
    admin: {
      command: 'workspace profile',
      flags: (f) => ({
        name: f.name,
        address: lines(f.address),
        email: f.email,
        phone: f.phone,
        terms_url: f['terms-url'],
        terms_text: lines(f['terms-text']),
      }),
    },
  },
  summary: () => "Set the seller's details on quotes",
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const current = await workspacesIn(ctx.data).named(workspaceId);
    if (!current) throw notFound('workspace');
    const next = changedProfile(sellerProfileOf(current), i);
    const saved = await saveSellerProfile(ctx.data, workspaceId, next);
    // The whole profile: what a signed quote's page showed can be read back from the audit log.
    ctx.audit(workspaceId, { ...saved });
    return saved;
  },
});
