import { setTimeout as sleep } from 'node:timers/promises';
import { benchLogger } from '../bench/lib/log';
import { withCleanup } from '../tooling/cleanup';
import { apiCrash } from './faults/api-crash';
import { apiKillOneOfTwo, workerKillOneOfTwo } from './faults/cluster';
import { expect, type Fault, type FaultContext, type FaultOutcome } from './faults/fault';
import { overload } from './faults/overload';
import { pgFreeze } from './faults/pg-freeze';
import { pgKill } from './faults/pg-kill';
import { receiverMatrix, type MatrixRow } from './faults/receiver-matrix';
import { relayCrash } from './faults/relay-crash';
import { smtpDown } from './faults/smtp-down';
import { temporalStop } from './faults/temporal-stop';
import { workerKill } from './faults/worker-kill';
import { workerKillMidSend } from './faults/worker-kill-mid-send';
import { workerKillMidCampaign } from './faults/worker-kill-mid-campaign';
import { closeLogs } from './lib/children';
import { awaitInvariants, type Check } from './lib/invariants';
import { Load } from './lib/load';
import { reconcileFindings } from './lib/reconcile';
import { Replies } from './lib/replies';
import { printReport, type PhaseResult } from './lib/report';
import { parseArgs } from './lib/settings';
import { startChaosStack } from './lib/stack';
import { Timeline } from './lib/timeline';

/**
 * `npm run chaos [-- --short] [--cluster [--overload N]]`: the real stack under a steady stream of lead
 * intakes, hurt one fault at a time (with `--cluster`, two APIs and two workers on the real Temporal
 * server, overloaded N times in a row first); after each, the invariants must hold again within a
 * deadline. Progress on stderr; a table, then one JSON line with every figure, on stdout. Exits 1 when
 * any check fails or anything is lost.
 */
async function main(): Promise<boolean> {
  const settings = parseArgs(process.argv.slice(2));
  const log = benchLogger('chaos');
  const timeline = new Timeline();
  const startedAt = Date.now();
  return withCleanup(log, async (stops) => {
    const stack = await startChaosStack(log, stops, timeline, settings.cluster);
    const load = new Load(stack.apiUrls, stack.main.apiKey);
    stops.push(async () => load.stop());
    const replies = new Replies(stack.db, load, stack.main.workspaceId, stack.main.apiKey);
    stops.push(async () => replies.stop());
    const endChecks: (() => Promise<Check>)[] = [];
    const ctx: FaultContext = {
      stack,
      load,
      timeline,
      log,
      settings,
      replies,
      atEnd: (check) => endChecks.push(check),
    };
    const settleMs = settings.settleSeconds * 1_000;
    const matrix: MatrixRow[] = [];
    // On the cluster: the faults of a deployment with two of each process, on the real Temporal server
    // sharing PostgreSQL with the service, the overload rounds first (`--overload N`, in a row), while no
    // crash has happened that could explain a duplicate. The single-process faults below are the dev
    // engine's run.
    const overloads = Array.from({ length: settings.overloadRounds }, (_, i) =>
      overload(i + 1, settings.overloadRounds),
    );
    const faults: Fault[] = settings.cluster
      ? [...overloads, workerKillOneOfTwo, apiKillOneOfTwo, temporalStop, pgKill]
      : [
          apiCrash,
          workerKill,
          workerKillMidSend,
          workerKillMidCampaign,
          // Early, so the first rung (1 minute) of the messages it catches comes before the run ends.
          smtpDown,
          relayCrash(settings.relayBeforeMark ? ['before-start', 'before-mark'] : ['before-start']),
          pgKill,
          pgFreeze,
          temporalStop,
          receiverMatrix(matrix),
        ];

    log.info(
      `steady load: ${settings.intakesPerSecond} lead intakes and ${settings.repliesPerSecond} email replies a second`,
    );
    load.start(settings.intakesPerSecond);
    replies.start(settings.repliesPerSecond);
    // Warm-up is load before any fault (a control row), not a wait for background work.
    await sleep(settings.warmupSeconds * 1_000);
    const phases: PhaseResult[] = [];
    let phaseStart = startedAt;
    const endPhase = async (
      name: string,
      outcome: FaultOutcome | undefined,
      loadAfter = true,
      final = false,
    ) => {
      // More load first (a window of traffic, not a wait for background work): it must go through too.
      if (loadAfter) await sleep(settings.afterFaultSeconds * 1_000);
      const invariants = await awaitInvariants(ctx, Date.now(), settleMs, final);
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
    replies.stop();
    const open = await load.settle(settleMs);
    const deferred: Check[] = [];
    for (const check of endChecks) deferred.push(await check());
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
          ...deferred,
        ],
        figures: {},
      },
      false,
      true,
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
