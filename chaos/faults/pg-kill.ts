import { setTimeout as sleep } from 'node:timers/promises';
import { expect, histogram, spreadByStatus, type Fault } from './fault';

/**
 * PostgreSQL's postmaster killed with SIGKILL (its backends follow), left down for a while under
 * load, then restarted on the same port and data directory. Nothing else is restarted: the API's and
 * the worker's pools, the relay's LISTEN connection and the attempts in flight must all recover.
 */
export const pgKill: Fault = {
  name: 'PostgreSQL killed',
  run: async ({ stack, load, timeline, settings, log }) => {
    const back = timeline.open('pg_kill');
    const killedAt = Date.now();
    log.info('SIGKILL to the PostgreSQL postmaster');
    await stack.pg.kill();
    // The outage itself: how long the database stays away is the fault's size, not a wait for work.
    await sleep(settings.pgDownSeconds * 1_000);
    log.info('restarting PostgreSQL on the same port and data directory');
    await stack.pg.restart();
    const restartedAt = Date.now();
    back();
    const during = load.intakes
      .flatMap((i) => i.tries)
      .filter((t) => t.sentAt >= killedAt && t.sentAt <= restartedAt);
    return {
      injected: `SIGKILL postmaster, down ${((restartedAt - killedAt) / 1000).toFixed(1)} s`,
      checks: [
        expect(
          'PostgreSQL came back on the same port and data directory',
          true,
          `down ${restartedAt - killedAt} ms; ${stack.pg.orphansKilled} orphaned backends had to be killed`,
        ),
      ],
      figures: {
        pg_down_ms: restartedAt - killedAt,
        orphaned_backends_killed: stack.pg.orphansKilled,
        api_answers_while_down: histogram(during.map((t) => t.status ?? t.error ?? '?')),
        api_answer_ms_while_down: spreadByStatus(during),
      },
    };
  },
};
