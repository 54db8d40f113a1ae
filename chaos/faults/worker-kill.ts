import { expect, type Fault } from './fault';
import { cutAttemptsResent, killWorkerHolding } from './kill-holding';

// Held requests to wait for before the kill; the cap per endpoint is 10 attempts in flight.
const HELD_BEFORE_KILL = 3;

/**
 * The worker killed (SIGKILL) while the receiver holds its requests open, so attempts are cut off
 * mid-flight with nothing recorded; then started again. Well inside the 10 s attempt deadline, so
 * the cut attempts must be re-sent under their own attempt number, not pushed down the ladder.
 */
export const workerKill: Fault = {
  name: 'worker killed mid-attempt',
  run: async (ctx) => {
    const { stack } = ctx;
    const { receiver } = stack;
    const { exit, held, cut, restartedAt } = await killWorkerHolding(ctx, receiver, {
      minHeld: HELD_BEFORE_KILL,
      waitMs: 8_000,
      what: 'requests',
    });
    // Each cut attempt must come again under its own number, not as a later rung of the ladder.
    const { ms: resentMs, check: resent } = await cutAttemptsResent(ctx, cut, restartedAt);
    return {
      injected: `SIGKILL with ${held} attempts held open`,
      checks: [
        expect('attempts were in flight when the worker died', held >= 1, `${held} held open`),
        expect('the worker died by SIGKILL', exit.signal === 'SIGKILL', `exit ${exit.code ?? exit.signal}`),
        expect('the receiver saw every held sender hang up', cut.length === held, `${cut.length} of ${held}`),
        resent('every cut attempt was sent again under its own attempt number', 'the restart'),
      ],
      figures: {
        attempts_held_at_kill: held,
        worker_down_ms: restartedAt - exit.at,
        cut_attempts_resent_ms_after_restart: resentMs ?? null,
      },
    };
  },
};
