import { waitFor } from '../../tooling/processes';
import type { Check } from '../lib/invariants';
import { INTERRUPTED } from '../lib/outbound';
import type { ChaosStack } from '../lib/stack';
import { expect, type Fault } from './fault';
import { killWorkerHolding } from './kill-holding';

// Hand-overs to wait for before the kill (nodemailer's pool holds up to 5 connections).
const HELD_BEFORE_KILL = 3;

/** `<mail_id@domain>` → mail_id, the row's random part of its Message-ID. */
const mailIdOf = (messageIdHeader: string) => messageIdHeader.replace(/^</, '').replace(/@.*$/, '');

/**
 * The worker killed (SIGKILL) while the SMTP server holds back its 250 after DATA, so hand-overs are
 * cut off mid-flight: the server has each message, the sender never heard so. Then started again.
 * What becomes of the cut messages is checked at the end of the run: their hand-overs' activities
 * time out 30 s on, and the run goes on meanwhile.
 */
export const workerKillMidSend: Fault = {
  name: 'worker killed mid-send',
  run: async (ctx) => {
    const { stack, replies, settings, atEnd } = ctx;
    const { exit, held, cut, restartedAt } = await killWorkerHolding(ctx, stack.smtp, {
      minHeld: HELD_BEFORE_KILL,
      waitMs: 10_000,
      what: 'hand-overs',
      // Replies of its own, so hand-overs are under way whatever the steady rate.
      meanwhile: () => replies.burst(HELD_BEFORE_KILL + 1),
    });
    atEnd(() => cutMessagesFailedVisibly(stack, cut, restartedAt, settings.settleSeconds * 1_000));
    return {
      injected: `SIGKILL with ${held} hand-overs held`,
      checks: [
        expect(
          'hand-overs were in flight when the worker died',
          held >= 1,
          `${held} held at the SMTP server`,
        ),
        expect('the worker died by SIGKILL', exit.signal === 'SIGKILL', `exit ${exit.code ?? exit.signal}`),
        expect(
          'the SMTP server saw every held sender hang up',
          cut.length === held,
          `${cut.length} of ${held}`,
        ),
      ],
      figures: { handovers_held_at_kill: held, worker_down_ms: restartedAt - exit.at },
    };
  },
};

/**
 * Each message whose hand-over the kill cut off (by the Message-IDs the server held) ended `failed`
 * with an `interrupted:` error (the hand-over is never retried), having arrived once at the server and
 * never again.
 */
export async function cutMessagesFailedVisibly(
  stack: ChaosStack,
  cut: string[],
  restartedAt: number,
  deadlineMs: number,
  fault = 'worker killed mid-send',
): Promise<Check> {
  type Row = { id: string; status: string; error: string | null };
  const mailIds = cut.map(mailIdOf);
  let rows: Row[] = [];
  try {
    await waitFor(
      'the cut messages to fail visibly',
      async () => {
        rows = await stack.db.query<Row[]>(
          `SELECT id, status, error FROM messages WHERE mail_id = ANY($1::uuid[])`,
          [mailIds],
        );
        return rows.length === cut.length && rows.every((r) => r.status !== 'sending');
      },
      deadlineMs,
      250,
    );
  } catch {
    // The rows as last read are the verdict.
  }
  const arrivals = stack.smtp.countsByMessageId();
  const arrivedOnce = (messageIdHeader: string) => arrivals.get(messageIdHeader) === 1;
  const wrong = [
    ...rows
      .filter((r) => r.status !== 'failed' || !INTERRUPTED.test(r.error ?? ''))
      .map((r) => `${r.id} ${r.status} (${r.error ?? ''})`),
    ...cut.filter((m) => !arrivedOnce(m)).map((m) => `${m} did not arrive exactly once`),
  ];
  return expect(
    `${fault}: every cut message ended failed, "interrupted:", not sent again`,
    rows.length === cut.length && wrong.length === 0,
    wrong.length > 0
      ? wrong.join('; ')
      : `${cut.length} failed visibly, each arrived once (checked ${((Date.now() - restartedAt) / 1000).toFixed(0)} s after the restart)`,
  );
}
