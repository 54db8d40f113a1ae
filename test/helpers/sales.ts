import { randomUUID } from 'node:crypto';
import type { Services } from '../../domain/kernel/operation';
import { createLead } from '../../domain/leads/operations/create';
import { createQuote } from '../../domain/sales/operations/quote-create';
import { sendQuoteOp } from '../../domain/sales/operations/quote-send';
import { dayIn } from '../../domain/sales/documents';
import { QUOTE_PAGE_PATH } from '../../domain/sales/quote-lifecycle';
import { pageLinks } from '../../domain/conversations';
import { SERVICE_DEFAULTS } from './api';
import { asOperator } from './fixtures';
import { intakeBody } from './leads';

/** A lead with an email address, made through the intake as the operator. */
export async function leadIn(services: Services, workspaceId: string, over: Record<string, unknown> = {}) {
  const lead = (await asOperator(
    services,
    createLead,
    { ...intakeBody(over), idempotency_key: randomUUID() },
    { workspaceId },
  )) as { data: { id: string; email: string | null } };
  return lead.data;
}

/** Today in a time zone, YYYY-MM-DD. */
export const today = (zone = 'Europe/Paris') => dayIn(new Date(), zone);

export const LINES = [
  { description: 'Onboarding workshop', quantity: 1, unit_amount: 120_000 },
  { description: 'Licence, per seat', quantity: 12, unit_amount: 2_500 },
  { description: 'Launch discount', quantity: 1, unit_amount: -10_000 },
];
/** What LINES add up to, in cents. */
export const LINES_TOTAL = 120_000 + 12 * 2_500 - 10_000;

type QuoteOut = { id: string; number: string | null; revision: number; status: string; total: number };

/** A drafted quote for the lead (valid until `validUntil`, default in 30 days). */
export const draftQuote = async (
  services: Services,
  workspaceId: string,
  leadId: string,
  over: Record<string, unknown> = {},
) =>
  (await asOperator(
    services,
    createQuote,
    {
      lead: leadId,
      currency: 'EUR',
      lines: LINES,
      valid_until: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
      ...over,
    },
    { workspaceId },
  )) as QuoteOut;

/**
 * The link a quote's email carries, made as the worker makes it when the email leaves (from the
 * revision's id and the tests' default SECRETS_KEY); the answer to `quote send` never holds it.
 * test/e2e/bearer-links.test.ts takes it from the mail the real SMTP sink received instead.
 */
export const quoteLink = (quoteId: string, publicUrl = SERVICE_DEFAULTS.publicUrl) =>
  pageLinks(SERVICE_DEFAULTS.secretsKey, QUOTE_PAGE_PATH).url(publicUrl, quoteId);

/** Sends a draft; with the link its email carries, and that link's token and path. */
export async function send(services: Services, quoteId: string, publicUrl?: string) {
  const sent = (await asOperator(services, sendQuoteOp, { quote: quoteId })) as {
    quote: QuoteOut;
    message_id: string;
  };
  const link = quoteLink(sent.quote.id, publicUrl);
  return { ...sent, link, token: new URL(link).pathname.split('/').pop()!, path: new URL(link).pathname };
}
