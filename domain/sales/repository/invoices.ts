import type { Data } from '../../kernel/data';
import { DomainError } from '../../kernel/errors';
import { InvoiceEntity, type Invoice } from '../entities';

/** A workspace's invoices. */
export const invoicesIn = (data: Data) => {
  const rows = data.scoped(InvoiceEntity);
  return {
    find: (id: string, lock = false) => rows.findOne({ id }, { lock }),

    mustFind: async (id: string, lock = false): Promise<Invoice> => {
      const i = await rows.findOne({ id }, { lock });
      if (!i) throw new DomainError('not_found', 'No such invoice in this workspace.', { field: 'invoice' });
      return i;
    },

    ofQuote: (quoteId: string) => rows.findOne({ quote_id: quoteId }),

    insert: (values: Partial<Invoice>) => rows.insert(values),

    change: async (id: string, values: Partial<Invoice>): Promise<Invoice> =>
      (await rows.update({ id }, values))[0]!,

    list: (where: { lead_id?: string; status?: Invoice['status'] }, take: number) =>
      rows.find(where, { order: { issued_at: 'DESC', id: 'DESC' }, take }),
  };
};
