import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../../tooling/processes';
import { expect, type Fault } from './fault';

/**
 * The Temporal server stopped under load and restarted on the same port and data (the dev server's
 * SQLite file, or the real server's PostgreSQL). Intakes go on (the API does not need Temporal for
 * them); deliveries pile up unstarted, and must all drain once it is back. A worker that dies meanwhile is restarted by the supervisor, and counted.
 */
export const temporalStop: Fault = {
  name: 'Temporal stopped',
  run: async ({ stack, timeline, settings, log }) => {
    const exitsBefore = stack.worker.unexpectedExits.length;
    const startsBefore = stack.worker.supervisorStarts;
    const back = timeline.open('temporal_stop');
    const stoppedAt = Date.now();
    log.info(`stopping Temporal for ${settings.temporalDownSeconds} s`);
    await stack.temporal.stop();
    // The outage itself, not a wait for background work.
    await sleep(settings.temporalDownSeconds * 1_000);
    const [{ n: backlog }] = await stack.db.query<[{ n: number }]>(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status IN ('PENDING', 'FAILED')`,
    );
    log.info(`restarting Temporal (same port, same data) with ${backlog} deliveries waiting`);
    await stack.temporal.restart();
    const restartedAt = Date.now();
    back();

    let drainedMs: number | undefined;
    try {
      await waitFor(
        'the backlog to drain',
        async () => {
          const [{ n }] = await stack.db.query<[{ n: number }]>(
            `SELECT count(*)::int AS n FROM webhook_deliveries
              WHERE endpoint_id = $1 AND created_at < $2 AND status <> 'SUCCEEDED'`,
            [stack.main.endpointId, new Date(restartedAt)],
          );
          return n === 0;
        },
        settings.settleSeconds * 1_000,
        250,
      );
      drainedMs = Date.now() - restartedAt;
    } catch (err) {
      log.error(String(err));
    }
    const workerExits = stack.worker.unexpectedExits.length - exitsBefore;
    return {
      injected: `stopped ${((restartedAt - stoppedAt) / 1000).toFixed(1)} s`,
      checks: [
        expect(
          'the backlog drained once Temporal was back',
          drainedMs !== undefined,
          drainedMs === undefined
            ? `not within ${settings.settleSeconds} s`
            : `${backlog} waiting at restart, drained in ${(drainedMs / 1000).toFixed(1)} s`,
        ),
      ],
      figures: {
        temporal_down_ms: restartedAt - stoppedAt,
        backlog_at_restart: backlog,
        drain_ms: drainedMs ?? null,
        worker_exits_while_down: workerExits,
        worker_restarts_by_supervisor: stack.worker.supervisorStarts - startsBefore,
      },
    };
  },
};
