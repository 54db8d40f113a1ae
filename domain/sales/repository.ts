import type { Data } from '../kernel/data';
import { DomainError } from '../kernel/errors';
import type { OpportunityStage } from '../kernel/event-catalogue';
import { lockLead } from '../leads';
import {
  InvoiceEntity,
  OpportunityEntity,
  QuoteEntity,
  QuoteSignatureEntity,
  type CounterKind,
  type Invoice,
  type Opportunity,
  type Quote,
} from './entities';

/** How numbers print: Q-000042, INV-000042. */
const PREFIX: Record<CounterKind, string> = { quote: 'Q', invoice: 'INV' };

/** A workspace's opportunities. */
export const opportunitiesIn = (data: Data) => {
  const rows = data.scoped(OpportunityEntity);
  return {
    find: (id: string, lock = false) => rows.findOne({ id }, { lock }),

    /** The lead's open opportunity, if any (at most one: a partial unique index says so). */
    openFor: async (leadId: string): Promise<Opportunity | undefined> =>
      (
        await rows.find([
          { lead_id: leadId, stage: 'QUALIFIED' },
          { lead_id: leadId, stage: 'BOOKED' },
          { lead_id: leadId, stage: 'PROPOSAL' },
        ])
      )[0],

    /**
     * Opens one for the lead unless it has one open. SQL: ON CONFLICT against the partial unique
     * index, so two paths opening one at once (a booking and an intent) open one; undefined when the
     * lead already had one.
     */
    open: async (
      values: Pick<Opportunity, 'lead_id' | 'stage' | 'motion' | 'origin'>,
    ): Promise<Opportunity | undefined> => {
      const [row] = await data.sql<Opportunity[]>(
        `INSERT INTO opportunities (workspace_id, lead_id, stage, motion, origin) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (lead_id) WHERE stage NOT IN ('WON', 'LOST') DO NOTHING RETURNING *`,
        [data.workspaceId, values.lead_id, values.stage, values.motion, values.origin],
      );
      return row;
    },

    change: async (id: string, values: Partial<Opportunity>): Promise<Opportunity> =>
      (await rows.update({ id }, values))[0]!,

    list: (where: { lead_id?: string; stage?: OpportunityStage }, take: number) =>
      rows.find(where, { order: { created_at: 'DESC', id: 'DESC' }, take }),

    /**
     * INBOUND unless the lead came from prospecting (its first touch). SQL: one indexed lookup of
     * the touch that created it.
     */
    motionOf: async (leadId: string): Promise<'INBOUND' | 'OUTBOUND'> => {
      const [first] = await data.sql<{ source_type: string }[]>(
        `SELECT source_type FROM touches WHERE lead_id = $1 AND workspace_id = $2 ORDER BY created_at LIMIT 1`,
        [leadId, data.workspaceId],
      );
      return first?.source_type === 'prospecting' ? 'OUTBOUND' : 'INBOUND';
    },
  };
};

/**
 * The next number of a kind in the workspace. SQL: an upsert that locks the counter row until the
 * transaction ends: concurrent callers wait their turn, and a rollback gives the number back, so
 * the numbers that exist have no gaps.
 */
export async function nextNumber(data: Data, kind: CounterKind): Promise<string> {
  const [{ last }] = await data.sql<[{ last: number }]>(
    `INSERT INTO document_counters (workspace_id, kind, last) VALUES ($1, $2, 1)
     ON CONFLICT (workspace_id, kind) DO UPDATE SET last = document_counters.last + 1 RETURNING last`,
    [data.workspaceId, kind],
  );
  return `${PREFIX[kind]}-${String(last).padStart(6, '0')}`;
}

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

/**
 * The quote a public page's token names: by its id (a derived token's) or by the unique index on the
 * hash of a random token sent before links were derived. In any workspace for the public door, which
 * has no key, or only in the call's own.
 */
export const quoteForPage = async (
  data: Data,
  by: { id: string } | { token_hash: string },
): Promise<Quote | undefined> => (await data.scoped(QuoteEntity).findOne(by)) ?? undefined;

/** Sent quotes and issued invoices whose timer workflow the relay has yet to start. */
export const salesUpkeep = (data: Data) => ({
  // SQL: each scan follows its partial index of unstarted rows, leaving out a list.
  unstartedQuotes: (limit: number, startedMeanwhile: string[]) =>
    data.sql<Quote[]>(
      `SELECT id, workspace_id, lead_id, number, revision, valid_until::text AS valid_until, expires_at
         FROM quotes WHERE status = 'SENT' AND timer_started_at IS NULL AND NOT (id = ANY($2::uuid[]))
        ORDER BY sent_at LIMIT $1`,
      [limit, startedMeanwhile],
    ),
  unstartedInvoices: (limit: number, startedMeanwhile: string[]) =>
    data.sql<Invoice[]>(
      `SELECT id, workspace_id, lead_id, number, due_date::text AS due_date, due_at
         FROM invoices WHERE status = 'ISSUED' AND timer_started_at IS NULL AND NOT (id = ANY($2::uuid[]))
        ORDER BY issued_at LIMIT $1`,
      [limit, startedMeanwhile],
    ),
  quoteTimerStarted: (id: string) =>
    data.sql(`UPDATE quotes SET timer_started_at = clock_timestamp() WHERE id = $1`, [id]),
  invoiceTimerStarted: (id: string) =>
    data.sql(`UPDATE invoices SET timer_started_at = clock_timestamp() WHERE id = $1`, [id]),
});

/**
 * The quote or invoice a call names, row-locked after its lead (the order every writer takes), with the
 * call's data confined to the lead's workspace.
 */
export async function lockedWithLead<T extends { lead_id: string }>(
  data: Data,
  repoOf: (d: Data) => { mustFind(id: string, lock?: boolean): Promise<T> },
  id: string,
) {
  const found = await repoOf(data).mustFind(id);
  const locked = await lockLead(data, found.lead_id);
  return { ...locked, row: await repoOf(locked.data).mustFind(id, true) };
}
