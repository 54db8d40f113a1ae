import type { Data } from '../../kernel/data';
import { DomainError } from '../../kernel/errors';
import { QuoteEntity, QuoteSignatureEntity, type Quote } from '../entities';

/** A workspace's quotes (one row per revision) and their signatures. */
export const quotesIn = (data: Data) => {
  const rows = data.scoped(QuoteEntity);
  const signatures = data.scoped(QuoteSignatureEntity);
  return {
    find: (id: string, lock = false) => rows.findOne({ id }, { lock }),

    mustFind: async (id: string, lock = false): Promise<Quote> => {
      const q = await rows.findOne({ id }, { lock });
      if (!q) throw new DomainError('not_found', 'No such quote in this workspace.', { field: 'quote' });
      return q;
    },

    /** Every revision of a quote, newest first, each locked when `lock` (a send or revision serialises on them). */
    family: (familyId: string, lock = false) =>
      rows.find({ family_id: familyId }, { order: { revision: 'DESC' }, lock }),

    insert: (values: Partial<Quote>) => rows.insert(values),

    change: async (id: string, values: Partial<Quote>): Promise<Quote> =>
      (await rows.update({ id }, values))[0]!,

    list: (where: { lead_id?: string; opportunity_id?: string }, take: number) =>
      rows.find(where, { order: { created_at: 'DESC', id: 'DESC' }, take }),

    signatureOf: (quoteId: string) => signatures.findOne({ quote_id: quoteId }),

    addSignature: signatures.insert.bind(signatures),
  };
};

/**
 * The quote a public page's token names: by its id (a derived token's) or by the unique index on the
 * hash of a random token sent before links were derived. In any workspace for the public door, which
 * has no key, or only in the call's own.
 */
export const quoteForPage = async (
  data: Data,
  by: { id: string } | { token_hash: string },
): Promise<Quote | undefined> => (await data.scoped(QuoteEntity).findOne(by)) ?? undefined;
