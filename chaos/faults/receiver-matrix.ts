import { deliveryWorkflowId } from '../../infra/temporal/workflow-ids';
import { workflowStatus } from '../../infra/temporal-client';
import { waitFor } from '../../tooling/processes';
import type { Check } from '../lib/invariants';
import { REDIRECT_TARGET, type Expectation } from '../lib/matrix-cases';
import type { MatrixEndpoint } from '../lib/stack';
import { expect, type Fault, type FaultContext } from './fault';
import { within } from '../lib/within';

type Attempt = {
  number: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  error_class: string | null;
};
type Delivery = {
  id: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  generation: number;
};

export type MatrixRow = {
  case: string;
  rule: string;
  expected: string;
  first: string;
  second: string | null;
  receiver: string;
  ok: boolean;
};

const RUNG_1_MS = 30_000;
const RUNG_2_MS = 5 * 60_000;
// Clock and scheduling slack on a busy machine, for the gap between attempts.
const GAP_SLACK_MS = 2_000;

const show = (e: { status: string; responseStatus: number | null; errorClass: string | null }) =>
  `${e.status} ${e.responseStatus ?? '-'} ${e.errorClass ?? '-'}`;

/**
 * One lead per fault endpoint, all at once, then each first attempt's record against what the rules
 * say; a delivery left to retry must wait in a live workflow with its next attempt 30 s ahead. The
 * full form also waits for the second attempt (each receiver answers 204 then, the TLS one cannot).
 */
export const receiverMatrix = (rows: MatrixRow[]): Fault => ({
  name: 'receiver fault matrix',
  run: async (ctx) => {
    const { stack, load } = ctx;
    const intakes = stack.matrix.map((m) => ({ m, intake: load.submit(m.apiKey, 'matrix') }));
    await within('the matrix intakes', 60_000, Promise.all(intakes.map((i) => i.intake.done)));
    const checks: Check[] = [];
    await Promise.all(
      intakes.map(async ({ m, intake }) => {
        if (!intake.leadId) {
          checks.push(expect(`${m.name}: intake`, false, intake.gaveUp ?? 'no lead'));
          return;
        }
        rows.push(await oneCase(ctx, m, intake.leadId, checks));
      }),
    );
    const redirected = stack.receiver.hits.of(REDIRECT_TARGET).length;
    checks.push(expect('the 307 Location received nothing', redirected === 0, `${redirected} requests`));
    rows.sort(
      (a, b) =>
        stack.matrix.findIndex((m) => m.name === a.case) - stack.matrix.findIndex((m) => m.name === b.case),
    );
    return {
      injected: `${stack.matrix.length} misbehaving receivers`,
      checks,
      figures: { cases: rows.length, cases_as_the_rules_say: rows.filter((r) => r.ok).length },
    };
  },
});

async function oneCase(
  ctx: FaultContext,
  m: MatrixEndpoint,
  leadId: string,
  checks: Check[],
): Promise<MatrixRow> {
  const { stack, settings } = ctx;
  const delivery = await waitFor(`the ${m.name} delivery`, async () => {
    const [d] = await stack.db.query<Delivery[]>(
      `SELECT d.id, d.status, d.attempts, d.next_attempt_at, d.generation FROM webhook_deliveries d
         JOIN events e ON e.id = d.event_id
        WHERE d.endpoint_id = $1 AND e.type = 'lead.created' AND e.data->>'lead_id' = $2`,
      [m.endpointId, leadId],
    );
    return d;
  });
  const first = await attemptRecord(ctx, delivery.id, 1);
  const afterFirst = await deliveryRow(ctx, delivery.id);
  const firstOk = await judge(ctx, m, first, afterFirst, m.first, 1, RUNG_1_MS, checks);
  let second: Attempt | undefined;
  let secondOk = true;
  if (settings.secondAttempts && m.second && first && afterFirst.status === 'FAILED') {
    second = await attemptRecord(ctx, delivery.id, 2, RUNG_1_MS + 60_000);
    const afterSecond = await deliveryRow(ctx, delivery.id);
    secondOk = await judge(ctx, m, second, afterSecond, m.second, 2, RUNG_2_MS, checks);
    if (second) {
      const gap = second.started_at.getTime() - (first.started_at.getTime() + first.duration_ms);
      const okGap = gap >= RUNG_1_MS - GAP_SLACK_MS;
      checks.push(
        expect(
          `${m.name}: second attempt waited the first rung (30 s)`,
          okGap,
          `${(gap / 1000).toFixed(1)} s`,
        ),
      );
      secondOk &&= okGap;
    }
  }
  const hits = stack.receiver.hits.of(m.path);
  const receiver =
    m.on === 'tls'
      ? `${hits.length} requests, ${stack.tls.refusedHandshakes()} handshakes refused (certificate by ${stack.tls.certificateMadeWith})`
      : hits.map((h) => `#${h.attempt}${h.signatureOk ? '' : ' (bad signature)'}: ${h.outcome}`).join('; ');
  const seen =
    m.on === 'tls'
      ? hits.length === 0 && stack.tls.refusedHandshakes() >= 1
      : hits.filter((h) => h.attempt === 1).length === 1 && hits.every((h) => h.signatureOk);
  checks.push(expect(`${m.name}: the receiver saw the attempt as sent`, seen, receiver));
  const describe = (a: Attempt | undefined, d: Delivery) =>
    a
      ? `${d.status} ${a.response_status ?? '-'} ${a.error_class ?? '-'} in ${a.duration_ms} ms`
      : 'no record';
  return {
    case: m.name,
    rule: m.rule,
    expected: show(m.first) + (settings.secondAttempts && m.second ? ` / then ${show(m.second)}` : ''),
    first: first ? describe(first, afterFirst) : 'no record',
    second: second ? describe(second, await deliveryRow(ctx, delivery.id)) : null,
    receiver,
    ok: firstOk && secondOk && seen,
  };
}

const attemptRecord = async (ctx: FaultContext, deliveryId: string, n: number, timeoutMs = 60_000) =>
  waitFor(
    `attempt ${n} of ${deliveryId} to be recorded`,
    async () => {
      const [a] = await ctx.stack.db.query<Attempt[]>(
        `SELECT number, started_at, duration_ms, response_status, error_class FROM webhook_attempts
          WHERE delivery_id = $1 AND number = $2`,
        [deliveryId, n],
      );
      return a;
    },
    timeoutMs,
    250,
  ).catch((err: unknown) => {
    ctx.log.error(String(err));
    return undefined;
  });

const deliveryRow = async (ctx: FaultContext, id: string) => {
  const [d] = await ctx.stack.db.query<Delivery[]>(
    'SELECT id, status, attempts, next_attempt_at, generation FROM webhook_deliveries WHERE id = $1',
    [id],
  );
  return d!;
};

/** The attempt's record and the delivery's state against the rule; a retry must wait alive. */
async function judge(
  ctx: FaultContext,
  m: MatrixEndpoint,
  a: Attempt | undefined,
  d: Delivery,
  want: Expectation,
  n: number,
  rungMs: number,
  checks: Check[],
): Promise<boolean> {
  const got = a
    ? { status: d.status, responseStatus: a.response_status, errorClass: a.error_class }
    : undefined;
  const matches =
    !!got &&
    got.status === want.status &&
    got.responseStatus === want.responseStatus &&
    got.errorClass === want.errorClass;
  checks.push(
    expect(
      `${m.name}: attempt ${n} recorded as the rules say (${show(want)})`,
      matches,
      got ? `${show(got)}, ${a!.duration_ms} ms` : 'no record',
    ),
  );
  if (!a || want.status !== 'FAILED' || d.status !== 'FAILED') return matches;
  const due = d.next_attempt_at?.getTime() ?? 0;
  const expectedDue = a.started_at.getTime() + a.duration_ms + rungMs;
  const workflow = await workflowStatus(ctx.stack.client)(deliveryWorkflowId(d.id, d.generation));
  const alive = workflow === 'RUNNING' && due > Date.now() && Math.abs(due - expectedDue) <= GAP_SLACK_MS;
  checks.push(
    expect(
      `${m.name}: waits alive for attempt ${n + 1} (${rungMs / 1000} s later)`,
      alive,
      `workflow ${workflow}, next attempt in ${((due - Date.now()) / 1000).toFixed(1)} s`,
    ),
  );
  return matches && alive;
}
