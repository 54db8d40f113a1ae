import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { notFound } from '../../kernel/errors';
import { READ_ONLY, WRITE, defineOperation } from '../../kernel/operation';
import { boolean, integer, nullable, number, object, string, uuid } from '../../kernel/shapes';
import { EMAIL_PATTERN, maxChars } from '../../kernel/validate';
import { DELIVERABILITY_BOUNDS, deliverabilityOf, type DeliverabilityLimits } from '../deliverability';
import { inboundEmailSecretHash, newInboundEmailSecret } from '../inbound-email';
import { MAX_NAME_LENGTH, MAX_TIMEZONE_LENGTH, ME, WORKSPACE, workspaceView } from '../views';
import { workspacesIn } from '../repository';
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
import { AREA } from '../area';

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const createWorkspace = defineOperation({
  name: 'workspace.create',
  title: 'Create a workspace',
  description: 'Creates a workspace (a business) that leads, members, keys and endpoints belong to.',
  returns: 'The workspace, with its id.',
  requirement: { scope: 'business:write', minRole: 'owner' },
  reach: 'none',
  operatorOnly: true,
  ...WRITE,
  input: yup
    .object({
      name: describe(
        yup.string().trim().required('name is required').max(MAX_NAME_LENGTH),
        'The business name.',
      ),
      timezone: describe(
        yup
          .string()
          .trim()
          .default('UTC')
          .max(MAX_TIMEZONE_LENGTH)
          .test('iana', 'timezone must be an IANA time zone name, for example Europe/London', isTimeZone),
        'IANA time zone; it also decides how national phone numbers are read.',
      ),
      industry: describe(yup.string().trim().max(MAX_NAME_LENGTH).default(''), 'What the business does.'),
    })
    .noUnknown('${unknown} is not a workspace field'),
  output: WORKSPACE,
  doors: {
    admin: {
      command: 'workspace create',
      flags: (f) => ({ name: f.name, timezone: f.timezone, industry: f.industry }),
    },
  },
  summary: (i) => `Create the workspace ${i.name}`,
  run: async (ctx, i) => {
    const w = await workspacesIn(ctx.data).create({
      name: i.name,
      timezone: i.timezone,
      industry: i.industry,
    });
    ctx.audit(w.id, { name: w.name });
    return workspaceView(w);
  },
});

/** What GET /me shows: the workspace, the key, and the role the key acts with right now. */
export const getWorkspace = defineOperation({
  name: 'workspace.get',
  title: 'Show the workspace and this key',
  description:
    "The workspace this key belongs to, the key's name and scopes, and the role it acts with right now; use it to see why a call is refused.",
  returns: '{ workspace, key, acting_as }.',
  requirement: { scope: 'business:read', minRole: 'viewer' },
  reach: 'workspace',
  ...READ_ONLY,
  input: yup.object({}).noUnknown('${unknown} is not a parameter of this call'),
  output: ME,
  doors: { rest: { method: 'get', path: '/me', operationId: 'getMe', area: AREA }, mcp: true },
  summary: () => 'Show the workspace and this key',
  run: async (ctx) => {
    const w = await workspacesIn(ctx.data).named(ctx.workspaceId!);
    if (!w) throw notFound('workspace');
    const p = ctx.actor.type === 'key' ? ctx.actor.principal : undefined;
    return {
      workspace: { id: w.id, name: w.name, timezone: w.timezone, industry: w.industry, status: w.status },
      key: p ? { name: p.keyName, environment: p.environment, scopes: p.scopes } : null,
      acting_as: { role: p ? p.role : null },
    };
  },
});

/**
 * The secret the inbound-email route requires (as the password of HTTP Basic or a Bearer token):
 * whatever forwards the workspace's mail (a mail provider's inbound parse, a Postfix pipe) presents it.
 * Issuing a new one replaces the old at once.
 */
export const issueInboundEmailSecret = defineOperation({
  name: 'workspace.issue_inbound_email_secret',
  title: "Issue the workspace's inbound-email secret",
  description:
    "Issues a new secret for the workspace's inbound-email route, replacing the old one at once; shown only now.",
  returns: '{ workspace_id, secret, path }.',
  requirement: { scope: 'business:write', minRole: 'admin' },
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  input: yup.object({}),
  output: object({ workspace_id: uuid, secret: string(), path: string() }),
  doors: { admin: { command: 'workspace inbound-email-secret' } },
  summary: () => "Issue the workspace's inbound-email secret",
  run: async (ctx) => {
    const workspaceId = ctx.workspaceId!;
    const secret = newInboundEmailSecret();
    await workspacesIn(ctx.data).setInboundEmailSecretHash(workspaceId, inboundEmailSecretHash(secret));
    ctx.audit(workspaceId, {});
    return { workspace_id: workspaceId, secret, path: `/hooks/email/${workspaceId}` };
  },
});

/** A limit within its bounds, the message naming the field and the range. */
function limit(field: keyof DeliverabilityLimits, description: string, whole = false) {
  const [least, most] = DELIVERABILITY_BOUNDS[field];
  const range = `${field} must be ${whole ? 'an integer ' : ''}between ${least} and ${most}`;
  const base = yup.number().typeError(range).min(least, range).max(most, range);
  return describe((whole ? base.integer(range) : base).optional(), description);
}

/**
 * The campaign brake's thresholds for this workspace, tightened within bounds (never looser than the
 * defaults mailbox providers hold senders to for complaints); a setting not given keeps its value.
 */
export const setDeliverability = defineOperation({
  name: 'workspace.set_deliverability',
  title: "Set the campaign brake's thresholds",
  description:
    'Sets when a running campaign pauses itself for deliverability: over at least min_sends sends, hard bounces above max_bounce_percent or spam complaints above max_complaint_percent. Each within its bounds; what is not given keeps its value.',
  returns: 'The thresholds now in force.',
  requirement: { scope: 'business:write', minRole: 'admin' },
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup.object({
    min_sends: limit('min_sends', 'Sends before the rates are judged (50 to 1,000; 100 by default).', true),
    max_bounce_percent: limit('max_bounce_percent', 'Hard bounces, % of sends (1 to 10; 5 by default).'),
    max_complaint_percent: limit(
      'max_complaint_percent',
      'Spam complaints, % of sends (0.05 to 0.3; 0.3 by default).',
    ),
  }),
  output: object({
    min_sends: integer({ minimum: 0 }),
    max_bounce_percent: number(),
    max_complaint_percent: number(),
  }),
  doors: {
    admin: {
      command: 'workspace deliverability',
      flags: (f) => ({
        min_sends: f['min-sends'],
        max_bounce_percent: f['max-bounce-percent'],
        max_complaint_percent: f['max-complaint-percent'],
      }),
    },
  },
  summary: () => "Set the campaign brake's thresholds",
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const workspaces = workspacesIn(ctx.data);
    const current = deliverabilityOf(await workspaces.named(workspaceId));
    const given = Object.fromEntries(Object.entries(i).filter(([, v]) => v !== undefined));
    const limits: DeliverabilityLimits = { ...current, ...given };
    await workspaces.setDeliverability(workspaceId, limits);
    ctx.audit(workspaceId, { ...limits });
    return limits;
  },
});

/**
 * Whether approving takes a second person: with `distinct`, the member who owns the key that parked a
 * request may not approve it (they may still reject it); another admin or owner must. The rule itself
 * is the approvals area's (`deciderRefusal`), which reads this setting.
 */
export const setApprovalPolicy = defineOperation({
  name: 'workspace.set_approval_policy',
  title: 'Require a second person to approve',
  description:
    "Sets whether approving an assistant's parked request takes a second person: with distinct true, the member who owns the key that asked may not approve it (the refusal is audited), and another admin or owner must; they may still reject it. False by default, so a workspace with one admin keeps working.",
  returns: '{ distinct }: the policy now in force.',
  requirement: { scope: 'business:write', minRole: 'admin' },
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  // Text, not a boolean: the CLI makes a boolean field a switch, and turning the rule off must read as
  // plainly as turning it on (`--distinct false`).
  input: yup.object({
    distinct: describe(
      yup
        .string()
        .required('distinct is required: true or false')
        .oneOf(['true', 'false'], 'distinct must be true or false'),
      'true: the owner of the key that asked may not approve its request; false: any admin or owner may.',
    ),
  }),
  output: object({ distinct: boolean }),
  doors: { admin: { command: 'workspace approvals', flags: (f) => ({ distinct: f.distinct }) } },
  summary: (i) =>
    i.distinct === 'true'
      ? 'Require a second person to approve'
      : 'Let any admin or owner approve, the requester too',
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const distinct = i.distinct === 'true';
    await workspacesIn(ctx.data).setDistinctApprover(workspaceId, distinct);
    ctx.audit(workspaceId, { distinct });
    return { distinct };
  },
});

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
