import type { Data } from '../kernel/data';
import { DomainError } from '../kernel/errors';
import type { OperationContext } from '../kernel/operation';
import type { Agent } from './entities';
import { agentsIn } from './repository/agents';
import { agentView } from './views';

/** An agent with nowhere to find work would run and do nothing: refused, naming `sources`. */
export function mustHaveSources(a: Agent) {
  if (a.status === 'STOPPED')
    throw new DomainError('conflict', 'The agent is STOPPED: a stopped agent cannot start or run again.');
  const s = a.sources;
  const has =
    a.type === 'follow_up'
      ? Boolean(s.lead_statuses?.length || s.lead_sources?.length)
      : Boolean(s.prospect_lists?.length);
  if (!has)
    throw new DomainError(
      'invalid_request',
      a.type === 'follow_up'
        ? 'sources: a follow-up agent needs lead_statuses or lead_sources to find leads; configure them first.'
        : 'sources: a prospecting agent needs prospect_lists; configure them first.',
      { field: 'sources' },
    );
}

/** An agent starts only with sources and a cadence: refused otherwise, naming what is missing. */
export function mustBeStartable(a: Agent) {
  mustHaveSources(a);
  if (!a.cadence)
    throw new DomainError('invalid_request', 'cadence: the agent has no cadence; configure one first.', {
      field: 'cadence',
    });
}

/** Refused before a person is asked: a request that could only fail is never parked. */
export const checked =
  (rule: (a: Agent) => void) =>
  async (i: { agentId: string }, look: Data): Promise<void> => {
    const a = await agentsIn(look).find(i.agentId);
    if (a && a.status !== 'ACTIVE') rule(a);
  };

/** Changes an agent's state (its status, or a run requested), audited from and to status; its schedule follows. */
export const changeState = async (ctx: OperationContext, a: Agent, values: Partial<Agent>, resync = true) => {
  const changed = await agentsIn(ctx.data.in(a.workspace_id)).change(a.id, values, { resync });
  ctx.audit(a.workspace_id, { agent_id: a.id, from: a.status, to: changed.status });
  return agentView(changed, ctx.services.jobNames);
};
