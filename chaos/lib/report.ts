import { cpus, loadavg } from 'node:os';
import { formatTable } from '../../bench/lib/report';
import { histogram, type FaultOutcome } from '../faults/fault';
import type { MatrixRow } from '../faults/receiver-matrix';
import { findDuplicates } from './duplicates';
import type { Check, CheckContext, InvariantReport } from './invariants';
import { judgeOutbound, outboundFigures } from './outbound';
import type { ReconcileFindings } from './reconcile';
import type { Replies } from './replies';

/** One row of the table: a fault (or the warm-up, or the end) and what its phase saw. */
export type PhaseResult = {
  name: string;
  start: number;
  end: number;
  outcome: FaultOutcome | undefined;
  invariants: InvariantReport;
};

const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * Per phase: the steady load's lead.created events committed in it, how many the receiver accepted
 * (by the end of the run), lost, duplicated; its checks. Prints the tables, then one JSON line with
 * every figure as the very last line of stdout. Returns whether the run passed.
 */
export async function printReport(
  ctx: CheckContext & { settings: { mode: string }; replies: Replies },
  phases: PhaseResult[],
  matrix: MatrixRow[],
  reconcile: ReconcileFindings,
  startedAt: number,
): Promise<boolean> {
  const { stack, load, timeline } = ctx;
  const events = await stack.db.query<{ id: string; at: Date }[]>(
    `SELECT id, created_at AS at FROM events WHERE workspace_id = $1 AND type = 'lead.created' AND seq > $2`,
    [stack.main.workspaceId, stack.baseSeq],
  );
  const [{ n: allTypes }] = await stack.db.query<[{ n: number }]>(
    'SELECT count(*)::int AS n FROM events WHERE seq > $1',
    [stack.baseSeq],
  );
  const duplicates = findDuplicates(stack.receiver, timeline);
  const arrivals = stack.smtp.countsByMessageId();
  const outbound = await judgeOutbound(stack.db, stack.client, arrivals, { final: true });
  const delivered = (id: string) => stack.receiver.main.get(id)?.some((r) => r.accepted) ?? false;
  const figuresFor = (from: number, to: number) => {
    const mine = events.filter((e) => e.at.getTime() >= from && e.at.getTime() < to).map((e) => e.id);
    const set = new Set(mine);
    const dups = duplicates.filter((d) => set.has(d.eventId));
    const received = mine.filter(delivered).length;
    return {
      events_committed: mine.length,
      delivered: received,
      lost: mine.length - received,
      duplicated: dups.reduce((n, d) => n + d.accepted.length - 1, 0),
      duplicates_explained: dups.filter((d) => d.explanation).reduce((n, d) => n + d.accepted.length - 1, 0),
    };
  };

  const frozen = phases.find((p) => p.outcome?.figures.api_longest_answer_ms_while_pg_frozen !== undefined);
  const longestFrozen = (frozen?.outcome?.figures.api_longest_answer_ms_while_pg_frozen as number) ?? null;
  const rows = phases.map((p) => {
    const checks: Check[] = [...(p.outcome?.checks ?? []), ...p.invariants.checks];
    const exits = (s: typeof stack.api) => s.unexpectedExits.filter((e) => e.phase === p.name).length;
    return {
      fault: p.name,
      injected: p.outcome?.injected ?? '-',
      ...figuresFor(p.start, p.end),
      messages: outboundFigures(outbound, arrivals, p.start, p.end),
      settled_s: p.invariants.seconds,
      checks_passed: checks.filter((c) => c.ok).length,
      checks_total: checks.length,
      unexpected_exits: { api: exits(stack.api), worker: exits(stack.worker) },
      figures: p.outcome?.figures ?? {},
      checks,
    };
  });
  const faults = rows.filter((r) => r.injected !== '-');
  const total = figuresFor(0, Infinity);
  const messages = outboundFigures(outbound, arrivals, 0, Infinity);
  const failures = rows.flatMap((r) =>
    r.checks.filter((c) => !c.ok).map((c) => `${r.fault}: ${c.name}: ${c.detail}`),
  );
  const tries = load.intakes.flatMap((i) => i.tries);

  console.log(
    `\nchaos (${ctx.settings.mode}): ${faults.length} faults under ${load.intakes.length} lead intakes, ` +
      `${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(2)}\n`,
  );
  console.log(
    formatTable(
      [
        'fault',
        'injected',
        'events',
        'delivered',
        'lost',
        'dup (expl.)',
        'msgs',
        'sent',
        'failed vis.',
        'sent twice',
        'API max ms, PG frozen',
        'checks',
        'settled s',
      ],
      rows.map((r) => [
        r.fault,
        r.injected,
        String(r.events_committed),
        String(r.delivered),
        String(r.lost),
        `${r.duplicated} (${r.duplicates_explained})`,
        String(r.messages.committed),
        String(r.messages.sent),
        String(r.messages.failed_visibly),
        String(r.messages.sent_twice),
        typeof r.figures.api_longest_answer_ms_while_pg_frozen === 'number'
          ? String(r.figures.api_longest_answer_ms_while_pg_frozen)
          : '-',
        `${r.checks_passed}/${r.checks_total}`,
        r.settled_s.toFixed(1),
      ]),
    ),
  );
  if (matrix.length > 0) {
    console.log('\nreceiver fault matrix (delivery status, response status, error class):\n');
    console.log(
      formatTable(
        ['case', 'expected', 'first attempt', 'second attempt', 'as the rules say'],
        matrix.map((m) => [m.case, m.expected, m.first, m.second ?? '-', m.ok ? 'yes' : 'NO']),
      ),
    );
  }
  const notable = [
    ...duplicates.map((d) => `duplicate ${d.eventId}: ${d.explanation ?? 'UNEXPLAINED'}`),
    ...[stack.api, stack.worker].flatMap((s) =>
      s.unexpectedExits.map(
        (e) =>
          `${s.name} exited unexpectedly (${e.code ?? e.signal}) during "${e.phase}"; supervisor restarted it`,
      ),
    ),
    `reconciler: ${typeof reconcile.triggered === 'string' ? reconcile.triggered : JSON.stringify(reconcile.triggered)}` +
      (reconcile.audited.length > 0 ? `; audited ${JSON.stringify(reconcile.audited)}` : '; no audit rows'),
  ];
  console.log(`\n${notable.join('\n')}`);
  if (failures.length > 0) console.log(`\nFAILED:\n${failures.map((f) => `  ${f}`).join('\n')}`);
  console.log(`\nlogs of the API and the worker: ${stack.dir}/logs`);

  const ok = failures.length === 0 && total.lost === 0 && messages.sent_twice === 0;
  console.log(
    JSON.stringify({
      chaos: ctx.settings.mode,
      ok,
      seconds: round1((Date.now() - startedAt) / 1000),
      faults_injected: faults.length,
      events_committed: total.events_committed,
      events_committed_all_types: allTypes,
      delivered: total.delivered,
      lost: total.lost,
      duplicated: total.duplicated,
      duplicates_explained: total.duplicates_explained,
      messages_committed: messages.committed,
      messages_sent: messages.sent,
      messages_failed_visibly: messages.failed_visibly,
      messages_sent_twice: messages.sent_twice,
      messages: {
        ...messages,
        arrivals_at_smtp: [...arrivals.values()].reduce((n, k) => n + k, 0),
        arrived_uncommitted: outbound.strays.length,
        replies_asked: ctx.replies.sent.length,
        replies_refused: ctx.replies.sent.filter((r) => r.error).length,
        // A reply the operation refused (PostgreSQL down or frozen) never became a message: nothing to send.
        replies_refused_by: histogram(
          ctx.replies.sent.flatMap((r) => (r.error ? [r.error.slice(0, 80)] : [])),
        ),
      },
      api_longest_answer_ms_while_pg_frozen: longestFrozen,
      checks_passed: rows.reduce((n, r) => n + r.checks_passed, 0),
      checks_failed: failures.length,
      failures,
      intakes: {
        sent: load.intakes.length,
        succeeded: load.intakes.filter((i) => i.succeededAt).length,
        replayed: load.intakes.filter((i) => i.replayed).length,
        gave_up: load.intakes.filter((i) => i.gaveUp).length,
        requests: tries.length,
        answers: Object.fromEntries(
          [...new Set(tries.map((t) => String(t.status ?? t.error)))].map((k) => [
            k,
            tries.filter((t) => String(t.status ?? t.error) === k).length,
          ]),
        ),
      },
      processes: {
        api_starts: stack.api.starts,
        worker_starts: stack.worker.starts,
        api_unexpected_exits: stack.api.unexpectedExits,
        worker_unexpected_exits: stack.worker.unexpectedExits,
        supervisor_restarts: { api: stack.api.supervisorStarts, worker: stack.worker.supervisorStarts },
      },
      duplicates: duplicates.map((d) => ({
        event_id: d.eventId,
        receipts: d.accepted.length,
        explanation: d.explanation ?? null,
      })),
      reconciler: reconcile,
      faults: rows,
      matrix,
      cpus: cpus().length,
      load_average_end: round1(loadavg()[0]!),
      node: process.version,
    }),
  );
  return ok;
}
