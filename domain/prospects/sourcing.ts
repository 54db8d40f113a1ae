import { workspaceNamed } from '../identity';
import { Data } from '../kernel/data';
import type { OperationContext, Services } from '../kernel/operation';
import { notFound } from '../kernel/errors';
import { prospectsIn } from './repository/prospects';
import { PROSPECT_SCORING_VERSION, scoreProspect } from './scoring';
import { runView } from './views';

/**
 * Starts sourcing over a list (by id or name): a run row, committed with the call, which the relay
 * turns into its workflow. `limit`: at most this many candidates (oldest first). An
 * agent's run names itself on the run.
 */
export async function startSourcing(ctx: OperationContext, i: { list: string; limit?: number }) {
  const list = await prospectsIn(ctx.data).mustFindList(i.list);
  const run = await prospectsIn(ctx.data.in(list.workspace_id)).startRun({
    list_id: list.id,
    scoring_version: PROSPECT_SCORING_VERSION,
    max_candidates: i.limit ?? null,
    agent_id: ctx.actor.type === 'agent' ? ctx.actor.agentId : null,
  });
  ctx.audit(list.workspace_id, { sourcing_run_id: run.id, list_id: list.id, limit: i.limit ?? null });
  return runView(run, list.name, ctx.services.jobNames);
}

export type SourcingBatch = { done: boolean; scored: number; dropped: number };

/**
 * Scores the next batch of a run's list in one transaction: candidates already leads or suppressed
 * are dropped (with the reason), the rest scored with the run's rules; the run's counts move with
 * them. Done when the list has no unscored candidate left or the run reached its limit.
 */
export async function scoreBatch(
  services: Services,
  runId: string,
  batchSize: number,
): Promise<SourcingBatch> {
  return services.db.transaction(async (m) => {
    const all = new Data(m, undefined);
    const found = await prospectsIn(all).lockRun(runId);
    if (!found) throw notFound('sourcing run');
    const data = all.in(found.workspace_id);
    const repo = prospectsIn(data);
    const run = found.workflow_started_at
      ? found
      : await repo.changeRun(runId, { workflow_started_at: new Date() });
    if (run.status !== 'RUNNING') return { done: true, scored: 0, dropped: 0 };
    const room =
      run.max_candidates === null
        ? batchSize
        : Math.min(batchSize, run.max_candidates - run.scored - run.dropped);
    const batch = room > 0 ? await repo.nextToScore(run.list_id, room) : [];
    const workspace = await workspaceNamed(data, run.workspace_id);
    const profile = { industry: workspace?.industry ?? '', timezone: workspace?.timezone ?? 'UTC' };
    const results = batch.map((p) => {
      const { score, reasons } = scoreProspect(p, profile);
      const dropped = p.is_lead ? 'already_a_lead' : p.suppressed ? 'suppressed' : null;
      return {
        id: p.id,
        status: dropped ? ('DROPPED' as const) : ('SCORED' as const),
        score,
        reasons,
        dropped,
      };
    });
    await repo.recordScores(run.id, run.scoring_version, results);
    const dropped = results.filter((r) => r.dropped).length;
    const scored = results.length - dropped;
    const done = results.length < room || room <= 0;
    await repo.changeRun(run.id, {
      scored: run.scored + scored,
      dropped: run.dropped + dropped,
      ...(done ? { status: 'COMPLETED' as const, finished_at: new Date() } : {}),
    });
    return { done, scored, dropped };
  });
}
