/**
 * What never reaches a log line. By field name, at any depth, because a caller cannot be trusted to
 * know every place a secret or a person's details sit in what it logs (a lead nested in an event, a
 * header inside an error). Names are compared lowercased, without `-` and `_`: `x-api-key`, `apiKey`
 * and `API_KEY` are one name.
 */
const CENSOR = '[redacted]';

/** Credentials: a name ending like this (`auth_token`, `signing_secret`, `set-cookie`, `x-api-key`). */
const SECRET_NAME = /(authorization|cookie|password|passwd|secret|secretskey|privatekey|token|apikey)$/;

/** A person and what they wrote: contact details, names, addresses, message bodies, form answers. */
const CONTACT_NAMES = new Set([
  'email',
  'emailaddress',
  'phone',
  'phonenumber',
  'mobile',
  'name',
  'firstname',
  'lastname',
  'fullname',
  'displayname',
  'contactname',
  'address',
  'streetaddress',
  'postcode',
  'postalcode',
  'zip',
  'zipcode',
  'to',
  'from',
  'cc',
  'bcc',
  'replyto',
  'recipient',
  'sender',
  'subject',
  'body',
  'text',
  'html',
  'answers',
]);

const normalise = (name: string) => name.toLowerCase().replace(/[-_]/g, '');

function sensitiveName(name: string): boolean {
  const n = normalise(name);
  // Bare `key` is a credential; `idempotency_key` or `key_prefix` are not.
  return n === 'key' || SECRET_NAME.test(n) || CONTACT_NAMES.has(n);
}

/**
 * Second line, for text (the message, an error's stack, any string value): the shapes of this service's
 * own secrets, bearer tokens, credentials in a URL, and email addresses. A phone number has no
 * shape that would not also catch ids and timestamps, so phones rely on the field names alone.
 * Bearer first: a bearer token that is also a key is then censored whole, once.
 */
const TEXT_PATTERNS: { hint: RegExp; pattern: RegExp; replacement: string }[] = [
  { hint: /bearer/i, pattern: /\b(bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, replacement: `$1 ${CENSOR}` },
  {
    hint: /lk_live_|whsec_|iem_/,
    pattern: /\b(lk_live|whsec|iem)_[A-Za-z0-9_-]+/g,
    replacement: `$1_${CENSOR}`,
  },
  { hint: /:\/\/[^\s]*@/, pattern: /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, replacement: `$1${CENSOR}@` },
  {
    hint: /@/,
    pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
    replacement: CENSOR,
  },
];

export function scrubText(text: string): string {
  let out = text;
  // The hint is a cheap test that most text (a stack, a sentence) fails, skipping the pattern.
  for (const { hint, pattern, replacement } of TEXT_PATTERNS)
    if (hint.test(out)) out = out.replace(pattern, replacement);
  return out;
}

// Deeper than any log call goes; it also ends a cycle.
const MAX_DEPTH = 8;

/**
 * A copy of `value` as JSON would show it, with sensitive names censored and text scrubbed. Errors
 * become their stack (JSON would make them `{}`); objects with `toJSON` (dates) are read through it.
 */
function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (value instanceof Error) return scrubText(value.stack ?? String(value));
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return redactValue(toJSON.call(value), depth + 1);
  return redactFields(value as Record<string, unknown>, depth);
}

export function redactFields(fields: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = sensitiveName(k) ? CENSOR : redactValue(v, depth + 1);
  return out;
}
