/**
 * The agents area: agents that follow up on leads on a cadence, within limits, handing over to a person.
 * This file is its public face: nothing outside domain/agents/ imports anything but this file. It offers
 * the agent operations and tables, its reactions to replies (a chased lead's reply is read, a person's
 * reply resolves a hand-over), the steps of an agent's run workflow, and what the relay and the Temporal
 * side need to keep each agent's schedule in step.
 */

import { AgentActionEntity, AgentDraftEntity, AgentEntity, AgentRunEntity, HandoffEntity } from './entities';
import { configureAgent } from './operations/configure';
import { createAgent } from './operations/create';
import { discardDraft } from './operations/discard-draft';
import { listDrafts } from './operations/drafts';
import { getAgent } from './operations/get';
import { listAgents } from './operations/list';
import { pauseAgent } from './operations/pause';
import { runAgentNow } from './operations/run-now';
import { agentRuns } from './operations/runs';
import { sendDraft } from './operations/send-draft';
import { startAgent } from './operations/start';
import { stopAgent } from './operations/stop';

/** The operations this area registers. */
export const operations = {
  createAgent,
  configureAgent,
  listAgents,
  getAgent,
  agentRuns,
  startAgent,
  runAgentNow,
  pauseAgent,
  stopAgent,
  listDrafts,
  sendDraft,
  discardDraft,
} as const;

/** Its tables. */
export const entities = [AgentEntity, AgentRunEntity, AgentDraftEntity, AgentActionEntity, HandoffEntity];

/** Its outbox: agents whose schedule is behind their state (the relay reads it). */
export { outboxes } from './outboxes';

/** How it reacts to the areas below it: the chasing agent reads a reply; a person's reply ends a hand-over. */
export { listen } from './reactions';

/** An agent as stored, and its weekly cadence (days and a time of day in the workspace's zone). */
export type { Agent, Cadence } from './entities';
/** The kinds of action an agent's run records (sent, drafted, skipped, escalated, proposed). */
export { ACTION_KINDS } from './entities';
/** What starts an agent's run workflow: the agent and what triggered it. */
export type { AgentRunInput } from './workflow-contract';
/** The steps of an agent's run (its workflow's activities): begin it, do the next batch, finish it. */
export { beginRun, finishRun, runBatch } from './run';
/** A cadence in words ("Mon, Wed, Fri at 09:00"), and what Temporal says of an agent's schedule. */
export { cadenceText } from './views';
export type { ScheduleState } from './views';
