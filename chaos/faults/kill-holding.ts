import { waitFor } from '../../tooling/processes';
import type { Exit } from '../lib/children';
import type { Check } from '../lib/invariants';
import { expect, type FaultContext } from './fault';

/** A server that can read requests and hold back their answers (the webhook receiver, the SMTP sink). */
export type Holder = {
  hold: (on: boolean) => void;
  heldCount: () => number;
  heldSendersGone: () => number;
  /** Answers what it held; returns what was held for a sender already gone. */
  releaseHeld: () => string[];
};

/**
 * SIGKILL to the worker once `holder` holds `minHeld` of its requests open (or after `waitMs`), so
 * they are cut off mid-flight; then started again. The kill is a crash window for the timeline.
 */
export async function killWorkerHolding(
  { stack, timeline, log }: FaultContext,
  holder: Holder,
  o: {
    minHeld: number;
    waitMs: number;
    what: string;
    meanwhile?: () => Promise<void>;
    /**
     * Another worker runs beside it: the killed one is left down (the fault starts it again itself),
     * and only some held requests are its own, so not every held sender hangs up.
     */
    otherWorkerRuns?: boolean;
  },
): Promise<{ exit: Exit; held: number; cut: string[]; restartedAt: number }> {
  holder.hold(true);
  await o.meanwhile?.();
  try {
    await waitFor(`${o.what} held open`, async () => holder.heldCount() >= o.minHeld, o.waitMs);
  } catch (err) {
    log.warn(String(err));
  }
  const back = timeline.open('worker_kill');
  log.info(`SIGKILL to the worker with ${holder.heldCount()} ${o.what} held open`);
  const exit = await stack.worker.kill('SIGKILL');
  // Counted once it is dead: nothing new can arrive from it.
  const held = holder.heldCount();
  try {
    // The kernel closes a dead process's sockets; the server sees each sender hang up.
    await waitFor(
      'held senders to hang up',
      async () => (o.otherWorkerRuns ? holder.heldSendersGone() > 0 : holder.heldSendersGone() === held),
      5_000,
      20,
    );
  } catch (err) {
    log.warn(String(err));
  }
  const cut = holder.releaseHeld();
  holder.hold(false);
  if (!o.otherWorkerRuns) {
    log.info('starting the worker again');
    await stack.worker.start();
  }
  back();
  return { exit, held, cut, restartedAt: Date.now() };
}

/**
 * Waits until every cut attempt was accepted again at the receiver: how long after `from` the last
 * came (undefined when not all did in time), and those that came under a later attempt number (pushed
 * down the ladder instead of re-sent as themselves).
 */
export async function cutAttemptsResent(
  { stack, settings, log }: FaultContext,
  cut: string[],
  from: number,
): Promise<{ ms?: number; renumbered: string[]; check: (name: string, since: string) => Check }> {
  const { receiver } = stack;
  const again = (id: string) => receiver.main.get(id)?.find((r) => r.accepted);
  let ms: number | undefined;
  try {
    await waitFor(
      'the cut attempts to be sent again',
      async () => cut.every(again),
      settings.settleSeconds * 1_000,
      100,
    );
    ms = Math.max(...cut.map((id) => again(id)!.at)) - from;
  } catch (err) {
    log.error(String(err));
  }
  const renumbered = cut.filter((id) => {
    const [first] = receiver.main.get(id)!;
    return again(id) && again(id)!.attempt !== first!.attempt;
  });
  /** The fault's check: all re-sent in time, none under a later number; `since` names `from`. */
  const check = (name: string, since: string) =>
    expect(
      name,
      ms !== undefined && renumbered.length === 0,
      ms === undefined
        ? 'not all within the deadline'
        : `${cut.length} re-sent, the last ${(ms / 1000).toFixed(1)} s after ${since}` +
            (renumbered.length > 0 ? `; ${renumbered.length} under a later number` : ''),
    );
  return { ms, renumbered, check };
}
