import assert from 'node:assert/strict';

/** A lead's contact details, odd enough that finding one in a log line or a label cannot be chance. */
export const rareContact = () => ({
  first_name: 'Zephyrine',
  last_name: 'Quillfeather',
  email: `zephyrine.quillfeather.${Date.now()}@example.com`,
  phone: '+33 6 98 76 54 32',
  postcode: 'QX9 4ZZ',
});

/** Each detail of `contact` by what it is, the phone also as the service stores it (E.164). */
export const detailsOf = (contact: ReturnType<typeof rareContact>): Record<string, string> => ({
  'the email': contact.email,
  'the phone': contact.phone,
  'the phone, normalised': `+${contact.phone.replace(/\D/g, '')}`,
  'the first name': contact.first_name,
  'the last name': contact.last_name,
  'the postcode': contact.postcode,
});

/** A key and an endpoint's signing secret (also without its prefix), by what each is. */
export const credentialsOf = (
  keys: Record<string, string>,
  signingSecret: string,
): Record<string, string> => ({
  ...keys,
  'the signing secret': signingSecret,
  'the signing secret without its prefix': signingSecret.slice('whsec_'.length),
});

/** Fails naming the first of `values` found in one of `texts` (log lines, a metrics page), and where. */
export function assertNoneIn(where: string, texts: string[], values: Record<string, string>): void {
  for (const [what, value] of Object.entries(values))
    for (const text of texts)
      assert.ok(!text.includes(value), `${what} is in ${where}: ${text.slice(0, 2000)}`);
}
