import { setTimeout as sleep } from 'node:timers/promises';
import { campaignWorkflowId } from '../../infra/temporal/workflow-ids';
import { workflowStatus } from '../../infra/temporal-client';
import { waitFor } from '../../tooling/processes';
import type { Check } from '../lib/invariants';
import { launchCampaign } from '../lib/campaigns';
import type { ChaosStack } from '../lib/stack';
import { expect, type Fault } from './fault';

/** Replies queued right as the server goes down, so the outage catches some whatever the steady rate. */
const BURST = 3;

/** Messages the outage caught (`retrying` on an SMTP 421 when the server came back). */
type SmtpOutage = { caught: string[]; upAt: number };

type Row = { id: string; mail_id: string; status: string; error: string | null; attempts: number };

const rowsOf = (stack: ChaosStack, ids: string[]) =>
  stack.db.query<Row[]>(`SELECT id, mail_id, status, error, attempts FROM messages WHERE id = ANY($1)`, [
    ids,
  ]);

/**
 * The SMTP server answers 421 ("try again later") to every recipient for a while, mid-load, then
 * accepts again. Each message handed over meanwhile must wait visibly (`retrying`, its workflow
 * running) for its next rung, 1 minute later, and then be sent, once: the end of the run checks that.
 */
export const smtpDown: Fault = {
  name: 'SMTP server down',
  run: async ({ stack, replies, settings, log, atEnd }) => {
    const { smtp } = stack;
    const arrivedBefore = smtp.received.length;
    const downAt = Date.now();
    log.info(`SMTP server answers 421 for ${settings.smtpDownSeconds} s`);
    smtp.down(421, '4.3.2 Service not available, try again later');
    // Mid-campaign too: a campaign launched into the outage.
    const campaignId = await launchCampaign(stack.db, replies.workspaceId, 'Chaos: SMTP down');
    await replies.burst(BURST);
    // The outage itself, not a wait for background work.
    await sleep(settings.smtpDownSeconds * 1_000);
    const caught = await stack.db.query<{ id: string }[]>(
      `SELECT id FROM messages WHERE direction = 'outbound' AND status = 'retrying' AND error LIKE 'SMTP 421%'`,
    );
    // Accepted while it refused: a message whose recipients it took before going down completes its
    // DATA after, as it would on a real server, and is not one the outage let through.
    const arrivedWhileDown = smtp.received.slice(arrivedBefore).filter((r) => r.acceptedAt >= downAt).length;
    smtp.up();
    const outage: SmtpOutage = { caught: caught.map((c) => c.id), upAt: Date.now() };
    atEnd(() => caughtMessagesSent(stack, outage, settings.settleSeconds * 1_000));
    atEnd(() => campaignWaitsOrSent(stack, campaignId, downAt));
    log.info(`SMTP server accepts again; ${caught.length} messages wait for their next rung`);
    return {
      injected: `421 for ${((outage.upAt - downAt) / 1000).toFixed(1)} s`,
      checks: [
        expect('the outage caught messages', caught.length >= 1, `${caught.length} retrying on SMTP 421`),
        expect(
          'nothing arrived while the server refused',
          arrivedWhileDown === 0,
          `${arrivedWhileDown} arrived`,
        ),
      ],
      figures: { smtp_down_ms: outage.upAt - downAt, messages_caught: caught.length },
    };
  },
};

/**
 * The end of the run: every message the outage caught was sent on a later rung, exactly once. Polls
 * (the first rung is 1 minute after the failure) until they are, or `deadlineMs` passes.
 */
async function caughtMessagesSent(stack: ChaosStack, outage: SmtpOutage, deadlineMs: number): Promise<Check> {
  const name = 'SMTP server down: every message it caught was sent later, once';
  if (outage.caught.length === 0) return expect(name, false, 'the outage caught nothing');
  let rows: Row[] = [];
  try {
    await waitFor(
      'the caught messages to be sent',
      async () => {
        rows = await rowsOf(stack, outage.caught);
        return rows.every((r) => r.status === 'sent');
      },
      deadlineMs,
      500,
    );
  } catch {
    // The rows as last read are the verdict.
  }
  const arrivals = stack.smtp.countsByMessageId();
  // Each Message-ID is `<mail_id@domain>`, the row's random part.
  const once = (mailId: string) => [...arrivals].some(([mid, n]) => mid.startsWith(`<${mailId}@`) && n === 1);
  const wrong = rows.filter((r) => r.status !== 'sent' || r.attempts < 2 || !once(r.mail_id));
  const lastAt = Math.max(
    ...stack.smtp.received
      .filter((r) => rows.some((m) => r.mail.messageId?.startsWith(`<${m.mail_id}@`)))
      .map((r) => r.at),
  );
  return expect(
    name,
    wrong.length === 0 && rows.length === outage.caught.length,
    wrong.length > 0
      ? wrong.map((r) => `${r.id} ${r.status} after ${r.attempts} attempts (${r.error ?? ''})`).join('; ')
      : `${rows.length} sent on a later rung, once each, the last ${((lastAt - outage.upAt) / 1000).toFixed(1)} s after the server was back`,
  );
}

/**
 * The campaign launched into the outage: the server refused its batch for now, so its sends were put
 * back (rows gone, recipients due again 5 minutes on) rather than failed or sent twice. At the end of
 * the run each recipient is either done (its row sent, arrived once) or waits visibly: due later, in the
 * campaign's live workflow.
 */
async function campaignWaitsOrSent(stack: ChaosStack, campaignId: string, downAt: number): Promise<Check> {
  type R = {
    lead_id: string;
    status: string;
    due_at: Date;
    row_status: string | null;
    row_id: string | null;
  };
  const rows = await stack.db.query<R[]>(
    `SELECT r.lead_id, r.status, r.due_at, m.status AS row_status, m.id AS row_id
       FROM campaign_recipients r
       LEFT JOIN messages m ON m.campaign_id = r.campaign_id AND m.lead_id = r.lead_id
      WHERE r.campaign_id = $1`,
    [campaignId],
  );
  const status = await workflowStatus(stack.client)(campaignWorkflowId(campaignId));
  const arrivals = stack.smtp.countsByMessageId();
  const arrivedOnce = (id: string) => [...arrivals].some(([mid, n]) => mid.startsWith(`<${id}@`) && n === 1);
  const sent = rows.filter((r) => r.row_status === 'sent' && arrivedOnce(r.row_id!));
  const waiting = rows.filter(
    (r) => r.status === 'ACTIVE' && r.row_id === null && r.due_at.getTime() > downAt && status === 'RUNNING',
  );
  const wrong = rows.length - sent.length - waiting.length;
  return expect(
    'SMTP server down mid-campaign: each recipient sent once, or put back and waiting visibly',
    rows.length > 0 && wrong === 0 && waiting.length > 0,
    `${rows.length} recipients: ${sent.length} sent once, ${waiting.length} put back (due again 5 min on, workflow ${status}), ${wrong} otherwise`,
  );
}
