import type { EntityManager } from 'typeorm';
import { insideWindow, type SendWindow, startOfLocalDay } from '../campaigns';
import { blockedReason, operations as conversationsOperations } from '../conversations';
import { workspaceNamed } from '../identity';
import type { Actor } from '../kernel/actor';
import { writeAudit } from '../kernel/audit';
import { Data } from '../kernel/data';
import { DomainError } from '../kernel/errors';
import { emitEvent } from '../kernel/events';
import { areaWiring } from '../kernel/wiring';
import type { OperationContext, Services } from '../kernel/operation';
import { runOperation } from '../kernel/runner';
import { leadNamed, lockLead } from '../leads';
import { operations as prospectsOperations } from '../prospects';
import { markChased } from './chase';
import type { Agent, AgentRun } from './entities';
import { agentsIn } from './repository/agents';
import { agentDraftsIn } from './repository/drafts';
import { agentRunsIn } from './repository/runs';
import { AGENT_SCOPES } from './requirements';
import { CHASE_LENGTH, chaseMessage } from './templates';
import type { AgentBatchOutcome, AgentRunStart } from './workflow-contract';

/**
 * When an agent may write to people, in the workspace's time zone: every day, 08:00 to 20:00 (the
 * quiet hours most rules on unsolicited contact name). A run outside it does nothing and says why.
 */
const AGENT_WINDOW: SendWindow = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 8, end_hour: 20 };

const DAY_MS = 24 * 3_600_000;

/**
 * The agent as an actor: confined to its workspace and its type's scopes; audited under door `agent`,
 * with its run's workflow as the request (the agent's id where it acts outside a run: only in tests).
 */
export const agentActor = (a: Agent, run?: AgentRun): Actor => ({
  type: 'agent',
  agentId: a.id,
  workspaceId: a.workspace_id,
  scopes: AGENT_SCOPES[a.type],
  ctx: { door: 'agent', requestId: run?.workflow_id ?? a.id },
});

const unconfined = (m: EntityManager) => new Data(m, undefined);
const emitter =
  (m: EntityManager): OperationContext['emit'] =>
  (ws, type, subject, data) =>
    emitEvent(m, areaWiring().fanOut, ws, type, subject, data);
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/**
 * A run's first step: the run's row (found again on a retry), and whether it may act. A scheduled run
 * of an agent that is no longer ACTIVE (paused or stopped since the schedule fired) does nothing.
 */
export async function beginRun(
  services: Services,
  input: { agentId: string; workflowId: string; trigger: AgentRun['trigger'] },
): Promise<AgentRunStart> {
  return services.db.transaction(async (m) => {
    const agent = await agentsIn(unconfined(m)).find(input.agentId);
    if (!agent) return { runId: '', go: false, note: 'the agent no longer exists' };
    const runs = agentRunsIn(unconfined(m).in(agent.workspace_id));
    const run = await runs.begin(agent, input.workflowId, input.trigger);
    if (run.status !== 'RUNNING') return { runId: run.id, go: false, note: run.note };
    const idle = agent.status === 'STOPPED' || (input.trigger === 'schedule' && agent.status !== 'ACTIVE');
    if (!idle) return { runId: run.id, go: true, note: null };
    const note = `the agent is ${agent.status}: nothing done`;
    await runs.finish(run.id, 'COMPLETED', note);
    return { runId: run.id, go: false, note };
  });
}

export async function finishRun(services: Services, runId: string, note: string | null, failed = false) {
  await agentRunsIn(unconfined(services.db.manager)).finish(runId, failed ? 'FAILED' : 'COMPLETED', note);
}

/** The next piece of a run's work, measured by the workflow's clock `now`. */
export async function runBatch(
  services: Services,
  runId: string,
  now: Date,
  batchSize: number,
): Promise<AgentBatchOutcome> {
  const all = unconfined(services.db.manager);
  const run = await agentRunsIn(all).find(runId);
  const agent = run && (await agentsIn(all).find(run.agent_id));
  if (!run || !agent) return { done: true, acted: 0, note: 'the agent no longer exists' };
  if (agent.status === 'STOPPED' || (run.trigger === 'schedule' && agent.status !== 'ACTIVE'))
    return { done: true, acted: 0, note: `the agent became ${agent.status} during the run` };
  const data = all.in(agent.workspace_id);
  const workspace = await workspaceNamed(data, agent.workspace_id);
  const tz = workspace?.timezone ?? 'UTC';
  if (agent.type === 'prospecting') return prospect(services, agent, run);
  if (!insideWindow(AGENT_WINDOW, now, tz))
    return {
      done: true,
      acted: 0,
      note: `outside the sending window (${AGENT_WINDOW.start_hour}:00 to ${AGENT_WINDOW.end_hour}:00, ${tz}): nothing sent`,
    };
  const runs = agentRunsIn(data);
  const inRun = await runs.messagesInRun(run.id);
  const today = await runs.messagesSince(agent.id, startOfLocalDay(now, tz));
  const { per_run, per_day } = agent.limits;
  if (inRun >= per_run) return { done: true, acted: 0, note: `limit reached: ${per_run} per run` };
  if (today >= per_day) return { done: true, acted: 0, note: `limit reached: ${per_day} per day` };
  const due = await runs.chaseable(agent, run.id, {
    limit: Math.min(per_run - inRun, per_day - today, batchSize),
    weekAgo: new Date(now.getTime() - 7 * DAY_MS),
    chaseLength: CHASE_LENGTH,
  });
  if (due.length === 0) return { done: true, acted: 0, note: null };
  let acted = 0;
  for (const { id } of due) if (await chase(services, agent, run, id, workspace?.name ?? '', now)) acted++;
  return { done: false, acted, note: null };
}

/**
 * One lead's chase message, from the next template: a draft for review, or sent through
 * `conversation.reply` as the agent (the same operation a person or key uses: suppression, outbox,
 * audit). Its action commits with it, once per lead per run; a contact who opted out is skipped,
 * and that is recorded too. Answers whether a message was written.
 */
async function chase(
  services: Services,
  agent: Agent,
  run: AgentRun,
  leadId: string,
  workspaceName: string,
  now: Date,
) {
  const actor = agentActor(agent, run);
  const look = unconfined(services.db.manager).in(agent.workspace_id);
  const lead = await leadNamed(look, leadId);
  if (!lead?.email) return false;
  const msg = chaseMessage(await agentRunsIn(look).chasesOf(agent.id, lead.id), lead, workspaceName);
  const skip = (outcome: string) =>
    services.db.transaction(async (m) => {
      await agentRunsIn(unconfined(m).in(agent.workspace_id)).record({
        agent_id: agent.id,
        run_id: run.id,
        kind: 'skipped',
        lead_id: lead.id,
        outcome,
        at: now,
      });
    });
  try {
    if (agent.review_level === 'draft') {
      await services.db.transaction(async (m) => {
        const { lead: held, data } = await lockLead(unconfined(m).in(agent.workspace_id), lead.id);
        const blocked = await blockedReason(data, held.email!, 'email');
        if (blocked) throw new DomainError('suppressed', blocked);
        const draft = await agentDraftsIn(data).create({
          agent_id: agent.id,
          run_id: run.id,
          lead_id: lead.id,
          channel: 'email',
          subject: msg.subject,
          body: msg.body,
          template: msg.template,
        });
        await agentRunsIn(data).record({
          agent_id: agent.id,
          run_id: run.id,
          kind: 'drafted',
          lead_id: lead.id,
          draft_id: draft.id,
          outcome: 'waiting for review',
          at: now,
        });
        await writeAudit(m, {
          door: 'agent',
          action: 'agent.draft',
          outcome: 'allowed',
          workspaceId: agent.workspace_id,
          requestId: run.workflow_id,
          details: { agent_id: agent.id, lead_id: lead.id, draft_id: draft.id, template: msg.template },
        });
      });
      return true;
    }
    await runOperation(
      services,
      conversationsOperations.replyToConversation,
      actor,
      { leadId: lead.id, channel: 'email', subject: msg.subject, body: msg.body },
      {
        auditDetails: { run_id: run.id, template: msg.template },
        alsoInTransaction: async (m, output) => {
          const data = unconfined(m).in(agent.workspace_id);
          const messageId = (output as { id: string }).id;
          await agentRunsIn(data).record({
            agent_id: agent.id,
            run_id: run.id,
            kind: 'sent',
            lead_id: lead.id,
            message_id: messageId,
            outcome: 'queued',
            at: now,
          });
          const current = await leadNamed(data, lead.id);
          await markChased(data, emitter(m), actor, current!);
        },
      },
    );
    return true;
  } catch (err) {
    // Another try of this batch got here first: the lead is done for this run.
    if (isUniqueViolation(err)) return false;
    if (err instanceof DomainError && (err.code === 'suppressed' || err.code === 'conflict')) {
      await skip(err.message.replace(/; nothing was sent\.$/, '')).catch((e: unknown) => {
        if (!isUniqueViolation(e)) throw e;
      });
      return false;
    }
    throw err;
  }
}

/**
 * A prospecting agent's run: sourcing over each of its lists through `prospect.start_sourcing`, as
 * the agent (up to `per_run` candidates each); what the runs score waits for a person to approve or
 * reject. Each start is an action, committed with it; a retried batch skips the lists already started.
 */
async function prospect(services: Services, agent: Agent, run: AgentRun): Promise<AgentBatchOutcome> {
  const actor = agentActor(agent, run);
  const look = unconfined(services.db.manager).in(agent.workspace_id);
  const started = (await agentRunsIn(look).actionsOf([run.id])).map((a) => a.outcome);
  let acted = 0;
  for (const list of agent.sources.prospect_lists ?? []) {
    const label = `list "${list}"`;
    if (started.some((o) => o.startsWith(label))) continue;
    try {
      await runOperation(
        services,
        prospectsOperations.startProspectSourcing,
        actor,
        { list, limit: agent.limits.per_run },
        {
          auditDetails: { run_id: run.id },
          alsoInTransaction: async (m, output) => {
            const sourcing = output as { id: string; workflow_id: string };
            await agentRunsIn(unconfined(m).in(agent.workspace_id)).record({
              agent_id: agent.id,
              run_id: run.id,
              kind: 'proposed',
              lead_id: null,
              subject_id: sourcing.id,
              outcome: `${label}: sourcing up to ${agent.limits.per_run} candidates (${sourcing.workflow_id}); scored prospects wait for a person`,
            });
          },
        },
      );
      acted++;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      await agentRunsIn(look).record({
        agent_id: agent.id,
        run_id: run.id,
        kind: 'skipped',
        lead_id: null,
        outcome: `${label}: ${err.message}`,
      });
    }
  }
  return { done: true, acted, note: null };
}
