/**
 * Message templates: `{first_name}` style placeholders, checked when a campaign is saved (an unknown
 * one is refused, naming it) and filled per lead when a step is sent or previewed.
 */
export const PLACEHOLDERS = [
  'first_name',
  'last_name',
  'full_name',
  'email',
  'phone',
  'workspace_name',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type TemplateValues = Record<Placeholder, string>;

const PLACEHOLDER = /\{([^{}\s]*)\}/g;

/** The placeholders a template names that do not exist, in order of appearance. */
export const unknownPlaceholders = (template: string): string[] =>
  [...template.matchAll(PLACEHOLDER)]
    .map((m) => m[1]!)
    .filter((name) => !(PLACEHOLDERS as readonly string[]).includes(name));

/** A template filled for one lead; a value the lead lacks becomes empty text, and spaces are tidied. */
export const render = (template: string, values: TemplateValues): string =>
  template
    .replace(PLACEHOLDER, (_m, name: string) => values[name as Placeholder] ?? '')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/ ([,.!?])/g, '$1');

export const valuesFor = (
  lead: { first_name: string | null; last_name: string | null; email: string | null; phone: string | null },
  workspaceName: string,
): TemplateValues => ({
  first_name: lead.first_name ?? '',
  last_name: lead.last_name ?? '',
  full_name: [lead.first_name, lead.last_name].filter(Boolean).join(' '),
  email: lead.email ?? '',
  phone: lead.phone ?? '',
  workspace_name: workspaceName,
});
