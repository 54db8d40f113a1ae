import { expect, histogram, type Fault } from './fault';
import { within } from '../lib/within';

// A few intakes into the armed run, so the crash lands amid steady traffic.
const CRASH_AFTER_COMMIT = 5;

/**
 * The API killed (SIGKILL, via API_CRASH_AFTER_COMMIT) right after an intake committed and before
 * its answer left. The client retries every cut-off intake with the same Idempotency-Key against
 * the restarted API; the committed one must come back as a replay of its first answer, and every
 * key must have exactly one lead.
 */
export const apiCrash: Fault = {
  name: 'API killed after commit',
  run: async ({ stack, load, log }) => {
    log.info(`restarting the API armed to SIGKILL itself after commit #${CRASH_AFTER_COMMIT}`);
    await stack.api.start({ API_CRASH_AFTER_COMMIT: String(CRASH_AFTER_COMMIT) });
    const exit = await within('the API to kill itself', 60_000, stack.api.armExit());
    log.info(`the API died (${exit.code ?? exit.signal}); starting it again`);
    await stack.api.start();
    const downMs = Date.now() - exit.at;

    // Intakes whose request was cut off by the crash: no HTTP answer, in flight when it died.
    const cut = load.intakes.filter((i) =>
      i.tries.some((t) => t.error !== undefined && t.sentAt <= exit.at && t.sentAt + t.ms >= exit.at - 100),
    );
    await within('the cut-off intakes to be retried', 60_000, Promise.all(cut.map((i) => i.done)));
    const replayed = cut.filter((i) => i.replayed);
    const rows = await stack.db.query<{ email: string; id: string; touches: number }[]>(
      `SELECT l.email, l.id, (SELECT count(*)::int FROM touches t WHERE t.lead_id = l.id) AS touches
         FROM leads l WHERE l.email = ANY($1)`,
      [cut.map((i) => i.email)],
    );
    const wrong = cut.filter((i) => {
      const mine = rows.filter((r) => r.email === i.email);
      return mine.length !== 1 || mine[0]!.id !== i.leadId || mine[0]!.touches !== 1;
    });
    return {
      injected: `SIGKILL after commit #${CRASH_AFTER_COMMIT}, before its answer`,
      checks: [
        expect(
          'the API died by SIGKILL after the commit',
          exit.signal === 'SIGKILL',
          `exit ${exit.code ?? exit.signal}`,
        ),
        expect(
          'the committed, unanswered intake was answered on retry as a replay of its first answer',
          replayed.length >= 1 && replayed.every((i) => i.outcome === 'CREATED'),
          `${cut.length} intakes cut off; ${replayed.length} replayed (${histogram(replayed.map((i) => i.outcome ?? '?'))})`,
        ),
        expect(
          'each cut-off Idempotency-Key has exactly one lead, processed once',
          wrong.length === 0 && cut.every((i) => i.succeededAt !== undefined),
          wrong.length === 0
            ? `${cut.length} keys, one lead each`
            : `${wrong.length} keys wrong: ${wrong.map((i) => i.idempotencyKey).join(', ')}`,
        ),
      ],
      figures: {
        crash_after_commit: CRASH_AFTER_COMMIT,
        api_down_ms: downMs,
        intakes_cut_off: cut.length,
        intakes_replayed: replayed.length,
      },
    };
  },
};
