import { setTimeout as sleep } from 'node:timers/promises';
import { benchLogger } from '../bench/lib/log';
import { withCleanup } from '../tooling/cleanup';
import { apiCrash } from './faults/api-crash';
import { expect, type Fault, type FaultContext, type FaultOutcome } from './faults/fault';
import { pgFreeze } from './faults/pg-freeze';
import { pgKill } from './faults/pg-kill';
import { receiverMatrix, type MatrixRow } from './faults/receiver-matrix';
import { relayCrash } from './faults/relay-crash';
import { temporalStop } from './faults/temporal-stop';
import { workerKill } from './faults/worker-kill';
import { closeLogs } from './lib/children';
import { awaitInvariants } from './lib/invariants';
import { Load } from './lib/load';
import { reconcileFindings } from './lib/reconcile';
import { printReport, type PhaseResult } from './lib/report';
import { parseArgs } from './lib/settings';
import { startChaosStack } from './lib/stack';
import { Timeline } from './lib/timeline';

/**
 * `npm run chaos [-- --short]`: the real stack under a steady stream of lead intakes, hurt one fault
 * at a time; after each, the invariants must hold again within a deadline. Progress on stderr; a
 * table, then one JSON line with every figure, on stdout. Exits 1 when any check fails or anything
 * is lost.
 */
async function main(): Promise<boolean> {
  const settings = parseArgs(process.argv.slice(2));
  const log = benchLogger('chaos');
  const timeline = new Timeline();
  const startedAt = Date.now();
  return withCleanup(log, async (stops) => {
    const stack = await startChaosStack(log, stops, timeline);
    const load = new Load(stack.apiUrl, stack.main.apiKey);
    stops.push(async () => load.stop());
    const ctx: FaultContext = { stack, load, timeline, log, settings };
    const settleMs = settings.settleSeconds * 1_000;
    const matrix: MatrixRow[] = [];
    const faults: Fault[] = [
      apiCrash,
      workerKill,
      relayCrash(settings.relayBeforeMark ? ['before-start', 'before-mark'] : ['before-start']),
      pgKill,
      pgFreeze,
      temporalStop,
      receiverMatrix(matrix),
    ];

    log.info(`steady load: ${settings.intakesPerSecond} lead intakes a second`);
    load.start(settings.intakesPerSecond);
    // Warm-up is load before any fault (a control row), not a wait for background work.
    await sleep(settings.warmupSeconds * 1_000);
    const phases: PhaseResult[] = [];
    let phaseStart = startedAt;
    const endPhase = async (name: string, outcome: FaultOutcome | undefined, loadAfter = true) => {
      // More load first (a window of traffic, not a wait for background work): it must go through too.
      if (loadAfter) await sleep(settings.afterFaultSeconds * 1_000);
      const invariants = await awaitInvariants(ctx, Date.now(), settleMs);
      const end = Date.now();
      phases.push({ name, start: phaseStart, end, outcome, invariants });
      log.info(
        `${name}: invariants ${invariants.ok ? 'hold' : 'FAILED'} after ${invariants.seconds} s` +
          (outcome ? `; ${outcome.checks.filter((c) => !c.ok).length} fault checks failed` : ''),
      );
      phaseStart = end;
    };
    await endPhase('no fault (warm-up)', undefined, false);

    for (const fault of faults) {
      timeline.enter(fault.name);
      log.info(`--- ${fault.name}`);
      let outcome: FaultOutcome;
      try {
        outcome = await fault.run(ctx);
      } catch (err) {
        log.error(`${fault.name} could not run: ${String(err)}`);
        outcome = {
          injected: 'failed',
          checks: [expect('the fault ran to its end', false, String(err))],
          figures: {},
        };
      }
      await endPhase(fault.name, outcome);
    }

    timeline.enter('end of run');
    load.stop();
    const open = await load.settle(settleMs);
    await endPhase(
      'end of run (load stopped)',
      {
        injected: '-',
        checks: [
          expect(
            'every intake ended with a 2xx',
            open === 0 && load.intakes.every((i) => i.succeededAt),
            `${open} still open; ${load.intakes.filter((i) => i.gaveUp).length} given up`,
          ),
        ],
        figures: {},
      },
      false,
    );
    const reconcile = await reconcileFindings(stack);
    return printReport(ctx, phases, matrix, reconcile, startedAt);
  });
}

main().then(
  async (ok) => {
    await closeLogs();
    process.exit(ok ? 0 : 1);
  },
  async (err: unknown) => {
    console.error(err);
    await closeLogs();
    process.exit(1);
  },
);
