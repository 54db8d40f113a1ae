import { waitFor } from '../../tooling/processes';
import type { Fault } from './fault';
import { expect } from './fault';

// Held requests to wait for before the kill; the cap per endpoint is 10 attempts in flight.
const HELD_BEFORE_KILL = 3;

/**
 * The worker killed (SIGKILL) while the receiver holds its requests open, so attempts are cut off
 * mid-flight with nothing recorded; then started again. Well inside the 10 s attempt deadline, so
 * the cut attempts must be re-sent under their own attempt number, not pushed down the ladder.
 */
export const workerKill: Fault = {
  name: 'worker killed mid-attempt',
  run: async ({ stack, timeline, settings, log }) => {
    const { receiver } = stack;
    receiver.hold(true);
    try {
      await waitFor(
        'requests held open at the receiver',
        async () => receiver.heldCount() >= HELD_BEFORE_KILL,
        8_000,
      );
    } catch (err) {
      log.warn(String(err));
    }
    const back = timeline.open('worker_kill');
    log.info(`SIGKILL to the worker with ${receiver.heldCount()} requests held open`);
    const exit = await stack.worker.kill('SIGKILL');
    // Counted once it is dead: nothing new can arrive from it.
    const held = receiver.heldCount();
    try {
      // The kernel closes a dead process's sockets; the receiver sees each sender hang up.
      await waitFor('held senders to hang up', async () => receiver.heldSendersGone() === held, 5_000, 20);
    } catch (err) {
      log.warn(String(err));
    }
    const cut = receiver.releaseHeld();
    receiver.hold(false);
    log.info('starting the worker again');
    await stack.worker.start();
    back();
    const restartedAt = Date.now();
    // Each cut attempt must come again under its own number, not as a later rung of the ladder.
    const again = (id: string) => receiver.main.get(id)?.find((r) => r.accepted);
    let resentMs: number | undefined;
    try {
      await waitFor(
        'the cut attempts to be sent again',
        async () => cut.every(again),
        settings.settleSeconds * 1_000,
        100,
      );
      resentMs = Math.max(...cut.map((id) => again(id)!.at)) - restartedAt;
    } catch (err) {
      log.error(String(err));
    }
    const renumbered = cut.filter((id) => {
      const [first] = receiver.main.get(id)!;
      return again(id) && again(id)!.attempt !== first!.attempt;
    });
    return {
      injected: `SIGKILL with ${held} attempts held open`,
      checks: [
        expect('attempts were in flight when the worker died', held >= 1, `${held} held open`),
        expect('the worker died by SIGKILL', exit.signal === 'SIGKILL', `exit ${exit.code ?? exit.signal}`),
        expect('the receiver saw every held sender hang up', cut.length === held, `${cut.length} of ${held}`),
        expect(
          'every cut attempt was sent again under its own attempt number',
          resentMs !== undefined && renumbered.length === 0,
          resentMs === undefined
            ? 'not all within the deadline'
            : `${cut.length} re-sent, the last ${(resentMs / 1000).toFixed(1)} s after the restart` +
                (renumbered.length > 0 ? `; ${renumbered.length} under a later number` : ''),
        ),
      ],
      figures: {
        attempts_held_at_kill: held,
        worker_down_ms: restartedAt - exit.at,
        cut_attempts_resent_ms_after_restart: resentMs ?? null,
      },
    };
  },
};
