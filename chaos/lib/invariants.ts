import { setTimeout as sleep } from 'node:timers/promises';
import { deliveryWorkflowId } from '../../infra/temporal/workflow-ids';
import type { Logger } from '../../infra/logger';
import { workflowStatus } from '../../infra/temporal-client';
import { findDuplicates } from './duplicates';
import { judgeOutbound } from './outbound';
import type { Load } from './load';
import type { ChaosStack } from './stack';
import type { Timeline } from './timeline';

export type Check = { name: string; ok: boolean; detail: string };

export type InvariantReport = {
  ok: boolean;
  checks: Check[];
  /** Seconds from the call until every invariant held (or the deadline). */
  seconds: number;
};

export type CheckContext = { stack: ChaosStack; load: Load; timeline: Timeline; log: Logger };

const SAMPLE = 3;
const sample = (items: string[]) =>
  items.slice(0, SAMPLE).join('; ') + (items.length > SAMPLE ? `; +${items.length - SAMPLE} more` : '');
const check = (name: string, problems: string[], okDetail: string): Check => ({
  name,
  ok: problems.length === 0,
  detail: problems.length === 0 ? okDetail : `${problems.length}: ${sample(problems)}`,
});

/**
 * Polls the invariants, about every second, until all hold for what was committed before `cutoff`
 * (the steady load goes on, so there is always something newer in flight), or `deadlineMs` passes:
 * then the last failures are the verdict. Never a fixed sleep.
 */
export async function awaitInvariants(
  ctx: CheckContext,
  cutoff: number,
  deadlineMs: number,
  /** The end of the run: nothing may be left in the middle of a hand-over. */
  final = false,
) {
  const started = Date.now();
  while (true) {
    let last: Check[];
    try {
      last = await checkOnce(ctx, cutoff, final);
    } catch (err) {
      // The harness's own reads failing (PostgreSQL still recovering) is not a verdict yet.
      last = [{ name: 'harness could read the state', ok: false, detail: String(err) }];
    }
    const ok = last.every((c) => c.ok);
    if (ok || Date.now() - started > deadlineMs) {
      const seconds = Math.round((Date.now() - started) / 100) / 10;
      if (!ok)
        for (const c of last.filter((x) => !x.ok)) ctx.log.error(`invariant failed: ${c.name}: ${c.detail}`);
      return { ok, checks: last, seconds } satisfies InvariantReport;
    }
    await sleep(1_000);
  }
}

async function checkOnce(ctx: CheckContext, cutoff: number, final: boolean): Promise<Check[]> {
  const { stack, load } = ctx;
  const { db } = stack;
  const before = new Date(cutoff);

  // 1. Every committed event has exactly one delivery per active endpoint subscribed to its type.
  const fanOut = await db.query<{ id: string; type: string; have: number; want: number }[]>(
    `SELECT * FROM (
       SELECT e.id, e.type,
              (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS have,
              (SELECT count(*)::int FROM webhook_endpoints w
                WHERE w.workspace_id = e.workspace_id AND w.status = 'ACTIVE' AND w.created_at <= e.created_at
                  AND (e.type = ANY(w.event_types) OR '*' = ANY(w.event_types))) AS want
         FROM events e WHERE e.seq > $1 AND e.created_at < $2) x
      WHERE have <> want`,
    [stack.baseSeq, before],
  );
  const [{ n: events }] = await db.query<[{ n: number }]>(
    'SELECT count(*)::int AS n FROM events WHERE seq > $1 AND created_at < $2',
    [stack.baseSeq, before],
  );

  // 2. Every delivery is finished, or waits in a live workflow for a time still to come.
  const waiting = await db.query<
    { id: string; status: string; generation: number; attempts: number; future: boolean | null }[]
  >(
    `SELECT id, status, generation, attempts, next_attempt_at > clock_timestamp() AS future
       FROM webhook_deliveries WHERE created_at < $1 AND status IN ('PENDING', 'FAILED')`,
    [before],
  );
  const notAlive: string[] = [];
  for (const d of waiting) {
    const workflow = await workflowStatus(stack.client)(deliveryWorkflowId(d.id, d.generation));
    if (d.status === 'FAILED' && d.future && workflow === 'RUNNING') continue;
    notAlive.push(
      `${d.id} ${d.status} after ${d.attempts} attempts, workflow ${workflow}, next attempt ${
        d.future === null ? 'not set' : d.future ? 'ahead' : 'overdue'
      }`,
    );
  }

  // 3. Nothing lost: every lead of the steady load has its event, its delivery, and a receipt.
  const leads = await db.query<
    { lead_id: string; event_id: string | null; delivery_id: string | null; status: string | null }[]
  >(
    `SELECT l.id AS lead_id, e.id AS event_id, d.id AS delivery_id, d.status
       FROM leads l
       LEFT JOIN events e ON e.workspace_id = l.workspace_id AND e.type = 'lead.created' AND e.data->>'lead_id' = l.id::text
       LEFT JOIN webhook_deliveries d ON d.event_id = e.id AND d.endpoint_id = $2
      WHERE l.workspace_id = $1 AND l.created_at < $3`,
    [stack.main.workspaceId, stack.main.endpointId, before],
  );
  const lost: string[] = [];
  for (const l of leads) {
    const accepted = l.event_id ? stack.receiver.main.get(l.event_id)?.some((r) => r.accepted) : false;
    if (!l.event_id) lost.push(`lead ${l.lead_id} has no lead.created event`);
    else if (!l.delivery_id) lost.push(`event ${l.event_id} has no delivery to the endpoint`);
    else if (!accepted) lost.push(`event ${l.event_id} not received (delivery ${l.status})`);
    else if (l.status !== 'SUCCEEDED')
      lost.push(`event ${l.event_id} received but its delivery is ${l.status}`);
  }
  const inDb = new Set(leads.map((l) => l.lead_id));
  for (const i of load.intakes)
    if (
      i.apiKey === stack.main.apiKey &&
      i.succeededAt &&
      i.succeededAt < cutoff &&
      !inDb.has(i.leadId ?? '')
    )
      lost.push(`intake ${i.idempotencyKey} answered ${i.leadId}, which is not in the database`);
  if (stack.receiver.badSignatures() > 0)
    lost.push(`${stack.receiver.badSignatures()} receipts failed signature verification`);

  // 4. One lead per Idempotency-Key, processed once: one lead for its address, with one touch.
  const intakes = load.intakes.filter((i) => i.succeededAt && i.succeededAt < cutoff);
  const found = await db.query<{ email: string; id: string; touches: number }[]>(
    `SELECT l.email, l.id, (SELECT count(*)::int FROM touches t WHERE t.lead_id = l.id) AS touches
       FROM leads l WHERE l.email = ANY($1)`,
    [intakes.map((i) => i.email)],
  );
  const byEmail = new Map<string, { id: string; touches: number }[]>();
  for (const f of found) byEmail.set(f.email, [...(byEmail.get(f.email) ?? []), f]);
  const twice: string[] = [];
  for (const i of intakes) {
    const rows = byEmail.get(i.email) ?? [];
    if (rows.length !== 1) twice.push(`key ${i.idempotencyKey}: ${rows.length} leads`);
    else if (rows[0]!.id !== i.leadId)
      twice.push(`key ${i.idempotencyKey}: answered ${i.leadId}, stored ${rows[0]!.id}`);
    else if (rows[0]!.touches !== 1)
      twice.push(`key ${i.idempotencyKey}: processed ${rows[0]!.touches} times`);
    else if (i.replayed && i.outcome !== 'CREATED')
      twice.push(`key ${i.idempotencyKey}: replayed as ${i.outcome}`);
  }

  // 5. Duplicates at the receiver happen only across a crash, and each is explained.
  const duplicates = findDuplicates(stack.receiver, ctx.timeline);
  const unexplained = duplicates.filter((d) => !d.explanation);

  // 6. Every committed outbound message was sent exactly once, or failed visibly, or waits visibly
  //    (at the end of the run, none is still being handed over).
  const arrivals = stack.smtp.countsByMessageId();
  const outbound = await judgeOutbound(db, stack.client, arrivals, { before, final });
  const unsettled = [...outbound.verdicts]
    .filter(([, v]) => v.verdict === 'WRONG' || v.verdict === 'not settled')
    .map(([id, v]) => `${id}: ${v.why}`);
  const sentTwice = [...arrivals].filter(([, n]) => n > 1).map(([id, n]) => `${id} arrived ${n} times`);
  const tally = (verdict: string) =>
    [...outbound.verdicts.values()].filter((v) => v.verdict === verdict).length;

  return [
    check(
      'fan-out: one delivery per subscribed endpoint',
      fanOut.map((e) => `${e.id} (${e.type}) has ${e.have}, wants ${e.want}`),
      `${events} events`,
    ),
    check(
      'deliveries finished, or waiting in a live workflow',
      notAlive,
      `${waiting.length} waiting, all alive`,
    ),
    check('nothing lost', lost, `${leads.length} leads, all received`),
    check('one lead per Idempotency-Key', twice, `${intakes.length} intakes`),
    check(
      'duplicates explained',
      unexplained.map((d) => `${d.eventId} received ${d.accepted.length} times`),
      `${duplicates.length} duplicated events, all explained`,
    ),
    check(
      'outbound: sent once, failed visibly or waiting visibly',
      unsettled,
      `${outbound.messages.length} messages: ${tally('sent once')} sent once, ` +
        `${tally('failed visibly')} failed visibly, ${tally('waiting visibly')} waiting in a live workflow`,
    ),
    check(
      'outbound: none sent twice, none sent unbidden',
      [...sentTwice, ...outbound.strays.map((id) => `${id} arrived; no committed message has it`)],
      `${arrivals.size} Message-IDs at the SMTP server, each once`,
    ),
  ];
}
