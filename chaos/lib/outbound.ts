import type { DataSource } from 'typeorm';
import { workflowStatus } from '../../infra/temporal-client';
import { campaignWorkflowId, messageWorkflowId } from '../../infra/temporal/workflow-ids';

/**
 * One committed outbound message, whatever wrote it. Its status is one of the outbound statuses
 * (`queued`, `sending`, `sent`, `retrying`, `failed`, `suppressed`).
 */
export type Outbound = {
  /** What wrote it: a conversation reply (campaign sends will join as a source of their own). */
  source: string;
  id: string;
  status: string;
  error: string | null;
  attempts: number;
  at: Date;
  /** The Temporal workflow that sends it. */
  workflowId: string;
  /** Its Message-ID, as the SMTP sink counts arrivals. */
  messageIdHeader: string;
};

/** A table of outbound messages the invariants cover. */
export type OutboundSource = {
  name: string;
  /** Its messages committed before `before` (every one when it is undefined). */
  committed: (db: DataSource, before: Date | undefined) => Promise<Outbound[]>;
};

/** Where the chaos worker sends from: every Message-ID is `<mail_id@MAIL_DOMAIN>` (the row's random part). */
export const MAIL_FROM = 'chaos@chaos.example';
const MAIL_DOMAIN = MAIL_FROM.split('@')[1]!;

/** Outbound email rows in `messages` (conversation replies). */
const messageRows: OutboundSource = {
  name: 'conversation reply',
  committed: async (db, before) => {
    const rows = await db.query<
      (Omit<Outbound, 'source' | 'workflowId' | 'messageIdHeader'> & { mail_id: string })[]
    >(
      `SELECT id, mail_id, status, error, attempts, at FROM messages
        WHERE direction = 'outbound' AND channel = 'email' AND campaign_id IS NULL
          AND ($1::timestamptz IS NULL OR at < $1)`,
      [before ?? null],
    );
    return rows.map(({ mail_id, ...r }) => ({
      ...r,
      source: 'conversation reply',
      workflowId: messageWorkflowId(r.id),
      messageIdHeader: `<${mail_id}@${MAIL_DOMAIN}>`,
    }));
  },
};

/** Campaign sends: `messages` rows keyed by (campaign, lead, step), sent by the campaign's workflow. */
const campaignSends: OutboundSource = {
  name: 'campaign send',
  committed: async (db, before) => {
    const rows = await db.query<
      (Omit<Outbound, 'source' | 'workflowId' | 'messageIdHeader'> & {
        campaign_id: string;
        mail_id: string;
      })[]
    >(
      `SELECT id, mail_id, status, error, attempts, at, campaign_id FROM messages
        WHERE campaign_id IS NOT NULL AND channel = 'email' AND ($1::timestamptz IS NULL OR at < $1)`,
      [before ?? null],
    );
    return rows.map(({ campaign_id, mail_id, ...r }) => ({
      ...r,
      source: 'campaign send',
      workflowId: campaignWorkflowId(campaign_id),
      messageIdHeader: `<${mail_id}@${MAIL_DOMAIN}>`,
    }));
  },
};

/** Every source of outbound messages. */
export const OUTBOUND_SOURCES: OutboundSource[] = [messageRows, campaignSends];

export const committedOutbound = async (db: DataSource, before?: Date) =>
  (await Promise.all(OUTBOUND_SOURCES.map((s) => s.committed(db, before)))).flat();

export const INTERRUPTED = /^interrupted:/;

/** What became of one message, judged against how often the SMTP server saw it. */
export type Verdict = 'sent once' | 'failed visibly' | 'waiting visibly' | 'not settled' | 'WRONG';

/**
 * Sent exactly once, or visibly failed, or visibly waiting: `sent` arrived once; `failed` carries an
 * error and arrived never, or at most once when its hand-over was cut off (`interrupted:`: it may
 * have left); `retrying`/`queued` wait in a live workflow; `suppressed` never arrived. `sending` in a
 * live workflow is a hand-over under way (a cut one ends `failed` when its activity times out, 30 s
 * on): it waits visibly mid-run, but at the end (`final`) nothing may still be `sending`. Anything
 * else, or any second arrival, is wrong.
 */
export async function judge(
  m: Outbound,
  arrivals: number,
  workflow: () => Promise<string>,
  final: boolean,
): Promise<{ verdict: Verdict; why?: string }> {
  const wrong = (why: string) => ({ verdict: 'WRONG' as const, why });
  const waiting = async (mayHaveArrived: number) => {
    const status = await workflow();
    return arrivals <= mayHaveArrived && status === 'RUNNING'
      ? { verdict: 'waiting visibly' as const }
      : { verdict: 'not settled' as const, why: `${m.status}, ${arrivals} arrivals, workflow ${status}` };
  };
  if (arrivals > 1) return wrong(`${m.status}, arrived ${arrivals} times`);
  switch (m.status) {
    case 'sent':
    case 'bounced':
      return arrivals === 1 ? { verdict: 'sent once' } : wrong(`${m.status}, never arrived`);
    case 'failed': {
      if (!m.error) return wrong('failed without an error');
      const mayHaveLeft = INTERRUPTED.test(m.error) ? 1 : 0;
      return arrivals <= mayHaveLeft
        ? { verdict: 'failed visibly' }
        : wrong(`failed (${m.error.slice(0, 60)}) yet arrived`);
    }
    case 'suppressed':
      return arrivals === 0 ? { verdict: 'failed visibly' } : wrong('suppressed, arrived');
    case 'sending':
      if (final) return { verdict: 'not settled', why: `still sending (attempt ${m.attempts})` };
      // It may be in the server's hands already, its 250 on the way.
      return waiting(1);
    case 'queued':
    case 'retrying':
      return waiting(0);
    default:
      return wrong(`status ${m.status}`);
  }
}

export type OutboundJudgement = {
  messages: Outbound[];
  verdicts: Map<string, { verdict: Verdict; why?: string }>;
  /** Message-IDs that arrived and belong to no committed message. */
  strays: string[];
};

/** Judges every message committed before `before` against the SMTP sink's counts. */
export async function judgeOutbound(
  db: DataSource,
  client: Parameters<typeof workflowStatus>[0],
  arrivalsById: Map<string, number>,
  opts: { before?: Date; final: boolean },
): Promise<OutboundJudgement> {
  const { before, final } = opts;
  const messages = await committedOutbound(db, before);
  const verdicts = new Map<string, { verdict: Verdict; why?: string }>();
  const status = workflowStatus(client);
  for (const m of messages)
    verdicts.set(
      m.id,
      await judge(m, arrivalsById.get(m.messageIdHeader) ?? 0, () => status(m.workflowId), final),
    );
  const all = before ? await committedOutbound(db) : messages;
  const known = new Set(all.map((m) => m.messageIdHeader));
  const strays = [...arrivalsById.keys()].filter((id) => !known.has(id));
  return { messages, verdicts, strays };
}

/** The figures of the messages committed in [from, to): what became of them, and any sent twice. */
export function outboundFigures(
  j: OutboundJudgement,
  arrivalsById: Map<string, number>,
  from: number,
  to: number,
) {
  const mine = j.messages.filter((m) => m.at.getTime() >= from && m.at.getTime() < to);
  const count = (verdict: Verdict) => mine.filter((m) => j.verdicts.get(m.id)?.verdict === verdict).length;
  return {
    committed: mine.length,
    sent: count('sent once'),
    failed_visibly: count('failed visibly'),
    interrupted: mine.filter((m) => m.status === 'failed' && INTERRUPTED.test(m.error ?? '')).length,
    waiting_visibly: count('waiting visibly'),
    not_settled: count('not settled'),
    wrong: count('WRONG'),
    sent_twice: mine.filter((m) => (arrivalsById.get(m.messageIdHeader) ?? 0) > 1).length,
  };
}
