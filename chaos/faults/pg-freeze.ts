import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../../tooling/processes';
import { API_DEADLINE_MS, DEADLINE_SLACK_MS } from '../lib/settings';
import { expect, histogram, spreadByStatus, type Fault } from './fault';

/**
 * PostgreSQL frozen: SIGSTOP to the postmaster and every backend (a stalled disk or VM looks like
 * this: connections open, nothing answers), then SIGCONT. While frozen the API must answer every
 * request within its deadline, with 503 `unavailable`, a request id and Retry-After when it cannot
 * finish; afterwards it must serve again by itself, nothing restarted.
 */
export const pgFreeze: Fault = {
  name: 'PostgreSQL frozen',
  run: async ({ stack, load, timeline, settings, log }) => {
    const apiStarts = stack.api.starts;
    const back = timeline.open('pg_freeze');
    const frozenAt = Date.now();
    const processes = stack.pg.freeze();
    log.info(`froze PostgreSQL (${processes} processes) for ${settings.pgFrozenSeconds} s`);
    // The outage itself, not a wait for background work.
    await sleep(settings.pgFrozenSeconds * 1_000);
    stack.pg.thaw();
    const thawedAt = Date.now();
    back();
    log.info('thawed PostgreSQL; waiting for the API to serve again');

    let recoveredMs: number | undefined;
    try {
      await waitFor(
        'an intake sent after the thaw to succeed',
        async () => load.intakes.some((i) => i.sentAt >= thawedAt && i.succeededAt),
        30_000,
        50,
      );
      const first = Math.min(
        ...load.intakes.filter((i) => i.sentAt >= thawedAt && i.succeededAt).map((i) => i.succeededAt!),
      );
      recoveredMs = first - thawedAt;
    } catch (err) {
      log.error(String(err));
    }
    // Every request that was waiting on the frozen database has its answer (or the client gave up).
    await waitFor(
      'the requests sent while frozen to be answered',
      async () => (load.oldestInFlight() ?? Infinity) > thawedAt,
      40_000,
      50,
    ).catch((err: unknown) => log.error(String(err)));

    const during = load.intakes
      .flatMap((i) => i.tries)
      .filter((t) => t.sentAt <= thawedAt && t.sentAt + t.ms >= frozenAt);
    const longest = Math.max(0, ...during.map((t) => t.ms));
    const refused = during.filter((t) => t.status === undefined || t.status >= 300);
    const proper = (t: (typeof during)[number]) =>
      t.status === 503 &&
      t.errorCode === 'unavailable' &&
      !!t.errorRequestId &&
      t.errorRequestId === t.requestIdHeader &&
      !!t.retryAfter;
    const improper = refused.filter((t) => !proper(t));
    const limit = API_DEADLINE_MS + DEADLINE_SLACK_MS;
    return {
      injected: `SIGSTOP ${processes} processes for ${((thawedAt - frozenAt) / 1000).toFixed(1)} s`,
      checks: [
        expect(
          `every answer while frozen within the ${API_DEADLINE_MS} ms deadline (+${DEADLINE_SLACK_MS} ms)`,
          during.length > 0 && longest <= limit,
          `${during.length} requests, longest ${longest} ms`,
        ),
        expect(
          'requests it could not finish were answered 503 unavailable with a request id and Retry-After',
          refused.length > 0 && improper.length === 0,
          `${refused.length} not 2xx: ${histogram(refused.map((t) => `${t.status ?? t.error}${t.errorCode ? ` ${t.errorCode}` : ''}`))}` +
            (improper.length > 0 ? `; ${improper.length} not a proper 503` : ''),
        ),
        expect(
          'the API served again by itself after the thaw',
          recoveredMs !== undefined && stack.api.starts === apiStarts,
          recoveredMs === undefined
            ? 'no intake sent after the thaw succeeded within 30 s'
            : `first success ${recoveredMs} ms after the thaw; API restarts: ${stack.api.starts - apiStarts}`,
        ),
      ],
      figures: {
        frozen_ms: thawedAt - frozenAt,
        frozen_processes: processes,
        api_longest_answer_ms_while_pg_frozen: longest,
        api_answers_while_frozen: histogram(during.map((t) => t.status ?? t.error ?? '?')),
        api_answer_ms_while_frozen: spreadByStatus(during),
        api_requests_while_frozen: during.length,
        api_recovered_ms_after_thaw: recoveredMs ?? null,
      },
    };
  },
};
