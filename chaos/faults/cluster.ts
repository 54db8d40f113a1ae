import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../../tooling/processes';
import { API_DOWN_SECONDS } from '../lib/settings';
import { expect, histogram, type Fault } from './fault';
import { cutAttemptsResent, killWorkerHolding } from './kill-holding';

/**
 * One of two workers killed (SIGKILL) while the receiver holds its requests open, and left down: the
 * other takes its workflows over (their tasks time out on the dead one and move), re-sends the cut
 * attempts under their own numbers, and carries the load alone. Then the first starts again.
 */
const KILL_ROUNDS = 3;
const holding = { minHeld: 3, waitMs: 8_000, what: 'requests', otherWorkerRuns: true };

export const workerKillOneOfTwo: Fault = {
  name: 'one of two workers killed',
  run: async (ctx) => {
    const { stack, log } = ctx;
    const { receiver } = stack;
    // Both workers poll one queue, so the held requests may all be the other worker's: the kill then
    // cuts nothing of its own. Such a round proves nothing, so worker 1 starts again and the fault
    // is tried anew, up to KILL_ROUNDS times.
    let round = await killWorkerHolding(ctx, receiver, holding);
    for (let n = 1; round.cut.length === 0 && n < KILL_ROUNDS; n++) {
      log.info(`none of the ${round.held} held requests was worker 1's; starting it and trying again`);
      await stack.worker.start();
      round = await killWorkerHolding(ctx, receiver, holding);
    }
    const { exit, held, cut } = round;
    const { ms: takenOverMs, check: resent } = await cutAttemptsResent(ctx, cut, exit.at);
    // New work too, while it is still alone: deliveries of intakes made after the kill.
    const deliveredSinceKill = async () => {
      const [{ n }] = await stack.db.query<[{ n: number }]>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND created_at > $2 AND status = 'SUCCEEDED'`,
        [stack.main.endpointId, new Date(exit.at)],
      );
      return n;
    };
    await waitFor(
      'a delivery made after the kill',
      async () => (await deliveredSinceKill()) > 0,
      15_000,
    ).catch((err: unknown) => log.warn(String(err)));
    const newDelivered = await deliveredSinceKill();
    log.info('starting the killed worker again');
    await stack.worker.start();
    return {
      injected: `SIGKILL to worker 1 with ${held} attempts held open; worker 2 alone`,
      checks: [
        expect(
          'attempts of the killed worker were in flight when it died',
          cut.length >= 1,
          `${held} held open, ${cut.length} of them its own`,
        ),
        expect('the worker died by SIGKILL', exit.signal === 'SIGKILL', `exit ${exit.code ?? exit.signal}`),
        resent(
          'the other worker sent every cut attempt, under its own number, while the first was down',
          'the kill',
        ),
        expect(
          'new deliveries went out while one worker was down',
          newDelivered > 0,
          `${newDelivered} delivered`,
        ),
      ],
      figures: {
        attempts_held_at_kill: held,
        taken_over_ms: takenOverMs ?? null,
        delivered_while_alone: newDelivered,
      },
    };
  },
};

/**
 * One of two API processes killed (SIGKILL) under load and left down a while: the client's load
 * balancer (the load's round robin) sends the retries to the other, which answers every one. No
 * client sees a 5xx; only requests that were on the dead process's connections fail, and are retried.
 */
export const apiKillOneOfTwo: Fault = {
  name: 'one of two APIs killed',
  run: async ({ stack, load, log }) => {
    const other = stack.second!.api;
    const [deadUrl, liveUrl] = stack.apiUrls as [string, string];
    const killedAt = Date.now();
    log.info('SIGKILL to API 1 under load');
    const exit = await stack.api.kill('SIGKILL');
    // The outage itself: how long one API stays away is the fault's size, not a wait for work.
    await sleep(API_DOWN_SECONDS * 1_000);
    const backAt = Date.now();
    const during = load.intakes
      .flatMap((i) => i.tries)
      .filter((t) => t.sentAt >= killedAt && t.sentAt <= backAt);
    const toLive = during.filter((t) => t.apiUrl === liveUrl);
    const toDead = during.filter((t) => t.apiUrl === deadUrl);
    log.info('starting API 1 again');
    await stack.api.start();
    const serverErrors = during.filter((t) => (t.status ?? 0) >= 500);
    return {
      injected: `SIGKILL to API 1, down ${((backAt - killedAt) / 1000).toFixed(1)} s`,
      checks: [
        expect('API 1 died by SIGKILL', exit.signal === 'SIGKILL', `exit ${exit.code ?? exit.signal}`),
        expect(
          'API 2 answered every request it got, none with a 5xx',
          toLive.length > 0 && toLive.every((t) => t.status !== undefined && t.status < 500),
          `${toLive.length} requests: ${histogram(toLive.map((t) => t.status ?? t.error ?? '?'))}`,
        ),
        expect('no client saw a 5xx', serverErrors.length === 0, `${serverErrors.length} 5xx answers`),
        expect(
          'requests to API 1 failed only to connect (no answer), and were retried',
          toDead.every((t) => t.status === undefined),
          histogram(toDead.map((t) => t.status ?? t.error ?? '?')),
        ),
      ],
      figures: {
        api_down_ms: backAt - killedAt,
        answers_from_api_2: histogram(toLive.map((t) => t.status ?? t.error ?? '?')),
        failures_at_api_1: toDead.length,
        api_2_unexpected_exits: other.unexpectedExits.length,
      },
    };
  },
};
