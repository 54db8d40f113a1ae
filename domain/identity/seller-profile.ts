import type { Data } from '../kernel/data';
import { WorkspaceEntity, type Workspace } from './entities';

/**
 * Who the customer deals with, as a workspace's quote pages show it: a name, a postal address, an
 * email, a phone and the terms the quote is accepted under (a link or a text, never both). Each is
 * null until set; without a name, the page names the workspace.
 */
export type SellerProfile = {
  name: string | null;
  address: string | null;
  email: string | null;
  phone: string | null;
  terms_url: string | null;
  terms_text: string | null;
};

/** The longest each setting may be, in characters (the table's checks say the same). */
export const SELLER_PROFILE_LIMITS: Record<keyof SellerProfile, number> = {
  name: 200,
  address: 500,
  email: 254,
  phone: 40,
  terms_url: 2_000,
  terms_text: 5_000,
};

/** The most lines an address may have: enough for any country's format, few enough for a letterhead. */
export const MAX_ADDRESS_LINES = 8;

/** How a setting is written: one line, an address's lines, or paragraphs of terms. */
type Form = 'line' | 'address' | 'paragraphs';
const FORMS: Record<keyof SellerProfile, Form> = {
  name: 'line',
  address: 'address',
  email: 'line',
  phone: 'line',
  terms_url: 'line',
  terms_text: 'paragraphs',
};

/**
 * A setting as stored: trimmed, line breaks as \n, each line trimmed; an address drops blank lines,
 * terms keep one between paragraphs. Empty is null: cleared.
 */
function tidy(v: string, form: Form): string | null {
  const lines = v.split(/\r\n?|\n/).map((l) => l.trim());
  const text =
    form === 'line'
      ? v.trim()
      : form === 'address'
        ? lines.filter(Boolean).join('\n')
        : lines
            .join('\n')
            .replace(/\n{3,}/g, '\n\n')
            .trim();
  return text === '' ? null : text;
}

/**
 * The profile with the settings given: one not given keeps its value, an empty one clears it. Terms
 * are a link or a text, so giving one clears the other.
 */
export function changedProfile(
  current: SellerProfile,
  given: Partial<Record<keyof SellerProfile, string>>,
): SellerProfile {
  const next = { ...current };
  for (const field of Object.keys(FORMS) as (keyof SellerProfile)[]) {
    const value = given[field];
    if (value !== undefined) next[field] = tidy(value, FORMS[field]);
  }
  if (given.terms_url?.trim()) next.terms_text = null;
  if (given.terms_text?.trim()) next.terms_url = null;
  return next;
}

// Control characters: none on a one-line setting; a multi-line one keeps its line breaks and tabs.
const CONTROL = /\p{Cc}/u;
const CONTROL_BUT_LINES = /[^\P{Cc}\n\r\t]/u;

export const isOneLine = (v: string) => !CONTROL.test(v);
export const isText = (v: string) => !CONTROL_BUT_LINES.test(v);
export const isAddress = (v: string) =>
  isText(v) && (tidy(v, 'address') ?? '').split('\n').length <= MAX_ADDRESS_LINES;

/** Digits with spaces, dots, dashes, brackets and a leading +, 3 to 20 digits (as a lead's phone). */
export const isPhone = (v: string) => /^(?=(?:\D*\d){3,20}\D*$)[+()\d\s.-]+$/.test(v);

/** An https link with a host and no credentials in it. */
export function isHttpsUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'https:' && u.hostname !== '' && !u.username && !u.password;
  } catch {
    return false;
  }
}

export const sellerProfileOf = (w: Workspace): SellerProfile => ({
  name: w.seller_name,
  address: w.seller_address,
  email: w.seller_email,
  phone: w.seller_phone,
  terms_url: w.seller_terms_url,
  terms_text: w.seller_terms_text,
});

/** The seller as a customer reads it: the profile, with the workspace's own name when it has none. */
export const sellerNamed = (w: Workspace): SellerProfile & { name: string } => ({
  ...sellerProfileOf(w),
  name: w.seller_name ?? w.name,
});

/** Stores the whole profile on the workspace, answering it as now stored. */
export async function saveSellerProfile(data: Data, id: string, p: SellerProfile): Promise<SellerProfile> {
  const [w] = await data.global(WorkspaceEntity).update(
    { id },
    {
      seller_name: p.name,
      seller_address: p.address,
      seller_email: p.email,
      seller_phone: p.phone,
      seller_terms_url: p.terms_url,
      seller_terms_text: p.terms_text,
    },
  );
  return sellerProfileOf(w!);
}
