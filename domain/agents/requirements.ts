import type { Requirement, Scope } from '../kernel/permissions';
import type { AgentType } from './entities';

export const AGENTS_READ: Requirement = { scope: 'agents:read', minRole: 'viewer' };
export const AGENTS_WRITE: Requirement = { scope: 'agents:write', minRole: 'admin' };

/**
 * What an agent's run may do, by type: a follow-up agent reads and writes to leads; a prospecting agent
 * reads leads and sources prospects. Never `agents:write` (the runner refuses it for any agent anyway).
 */
export const AGENT_SCOPES: Record<AgentType, readonly Scope[]> = {
  follow_up: ['leads:read', 'leads:write'],
  prospecting: ['leads:read', 'prospects:read', 'prospects:write'],
};
