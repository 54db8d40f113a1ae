import { waitFor } from '../../tooling/processes';
import { launchCampaign } from '../lib/campaigns';
import type { Check } from '../lib/invariants';
import type { ChaosStack } from '../lib/stack';
import { expect, type Fault } from './fault';
import { killWorkerHolding } from './kill-holding';
import { cutMessagesFailedVisibly } from './worker-kill-mid-send';

const HELD_BEFORE_KILL = 3;

/**
 * A campaign launched to every lead, and the worker killed (SIGKILL) while the SMTP server holds back
 * its 250s, so a batch is cut off mid-flight. Its rows were written `sending` before the hand-overs; the
 * retried batch (30 s on, the heartbeat timeout) fails them visibly and sends the rest. Checked at the
 * end of the run: every cut message `interrupted:`, arrived once; the campaign completed.
 */
export const workerKillMidCampaign: Fault = {
  name: 'worker killed mid-campaign batch',
  run: async (ctx) => {
    const { stack, replies, settings, atEnd } = ctx;
    let campaignId = '';
    const { exit, held, cut, restartedAt } = await killWorkerHolding(ctx, stack.smtp, {
      minHeld: HELD_BEFORE_KILL,
      waitMs: 15_000,
      what: 'campaign hand-overs',
      meanwhile: async () => {
        campaignId = await launchCampaign(stack.db, replies.workspaceId, 'Chaos: killed mid-batch');
      },
    });
    const deadline = settings.settleSeconds * 1_000;
    atEnd(() =>
      cutMessagesFailedVisibly(stack, cut, restartedAt, deadline, 'worker killed mid-campaign batch'),
    );
    atEnd(() => campaignCompleted(stack, campaignId, deadline));
    const [{ n: audience }] = await stack.db.query<[{ n: number }]>(
      `SELECT count(*)::int AS n FROM campaign_recipients WHERE campaign_id = $1`,
      [campaignId],
    );
    return {
      injected: `SIGKILL with ${held} campaign hand-overs held`,
      checks: [
        expect(
          'hand-overs were in flight when the worker died',
          held >= 1,
          `${held} held at the SMTP server`,
        ),
        expect('the worker died by SIGKILL', exit.signal === 'SIGKILL', `exit ${exit.code ?? exit.signal}`),
      ],
      figures: {
        campaign_audience: audience,
        handovers_held_at_kill: held,
        worker_down_ms: restartedAt - exit.at,
      },
    };
  },
};

/** The campaign finished: every recipient done or gone, and each step's row sent once or failed visibly. */
async function campaignCompleted(stack: ChaosStack, campaignId: string, deadlineMs: number): Promise<Check> {
  type Row = { status: string; sent: number; failed: number; active: number };
  let row: Row | undefined;
  try {
    await waitFor(
      'the campaign to complete',
      async () => {
        [row] = await stack.db.query<Row[]>(
          `SELECT c.status,
                  (SELECT count(*)::int FROM messages m WHERE m.campaign_id = c.id AND m.status = 'sent') AS sent,
                  (SELECT count(*)::int FROM messages m WHERE m.campaign_id = c.id AND m.status = 'failed') AS failed,
                  (SELECT count(*)::int FROM campaign_recipients r WHERE r.campaign_id = c.id AND r.status = 'ACTIVE') AS active
             FROM campaigns c WHERE c.id = $1`,
          [campaignId],
        );
        return row?.status === 'COMPLETED';
      },
      deadlineMs,
      500,
    );
  } catch {
    // The row as last read is the verdict.
  }
  return expect(
    'worker killed mid-campaign batch: the campaign completed after the restart',
    row?.status === 'COMPLETED' && row.active === 0,
    row
      ? `${row.status}: ${row.sent} sent, ${row.failed} failed visibly, ${row.active} still due`
      : 'no campaign',
  );
}
