import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * AI agents: a draft that, once started, is a Temporal Schedule `agent:<id>` firing runs at its cadence.
 * Every run records what it did as actions (one per lead per run, so a retried batch never acts twice);
 * a follow-up agent at review level `draft` leaves drafts for a person; a hand-over to a person is a
 * handoff row. `schedule_synced_at` is null while Temporal's schedule has yet to match the agent's status.
 */
export class Agents1763801200000 implements MigrationInterface {
  name = 'Agents1763801200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) >= 1 AND length(name) <= 200),
        type text NOT NULL CHECK (type IN ('follow_up', 'prospecting')),
        status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'ACTIVE', 'PAUSED', 'STOPPED')),
        cadence jsonb,
        sources jsonb NOT NULL DEFAULT '{}',
        limits jsonb NOT NULL,
        review_level text NOT NULL DEFAULT 'draft' CHECK (review_level IN ('draft', 'send')),
        template_version text NOT NULL,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        run_requested_at timestamptz,
        schedule_synced_at timestamptz
      );
      CREATE INDEX agents_workspace ON agents (workspace_id, created_at DESC);
      CREATE INDEX agents_unsynced ON agents (updated_at) WHERE schedule_synced_at IS NULL;

      CREATE TABLE agent_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        workflow_id text NOT NULL UNIQUE,
        trigger text NOT NULL CHECK (trigger IN ('schedule', 'run_now')),
        status text NOT NULL DEFAULT 'RUNNING' CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED')),
        note text,
        started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz
      );
      CREATE INDEX agent_runs_agent ON agent_runs (agent_id, started_at DESC);

      CREATE TABLE agent_drafts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        run_id uuid NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        channel text NOT NULL,
        subject text,
        body text NOT NULL,
        template text NOT NULL,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENT', 'DISCARDED')),
        message_id uuid REFERENCES messages(id) ON DELETE SET NULL,
        decided_by text,
        decided_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX agent_drafts_pending ON agent_drafts (workspace_id, created_at) WHERE status = 'PENDING';

      CREATE TABLE agent_actions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        run_id uuid REFERENCES agent_runs(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('sent', 'drafted', 'skipped', 'escalated', 'proposed')),
        lead_id uuid REFERENCES leads(id) ON DELETE CASCADE,
        subject_id uuid,
        message_id uuid REFERENCES messages(id) ON DELETE SET NULL,
        draft_id uuid REFERENCES agent_drafts(id) ON DELETE SET NULL,
        outcome text NOT NULL,
        at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE UNIQUE INDEX agent_actions_once ON agent_actions (run_id, lead_id)
        WHERE run_id IS NOT NULL AND lead_id IS NOT NULL;
      CREATE INDEX agent_actions_workspace ON agent_actions (workspace_id, at);
      CREATE INDEX agent_actions_agent ON agent_actions (agent_id, at DESC);
      CREATE INDEX agent_actions_lead ON agent_actions (lead_id, at DESC) WHERE lead_id IS NOT NULL;

      CREATE TABLE handoffs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
        message_id uuid REFERENCES messages(id) ON DELETE SET NULL,
        channel text NOT NULL,
        reason text NOT NULL,
        priority text NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'RESOLVED')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        resolved_at timestamptz
      );
      CREATE INDEX handoffs_lead ON handoffs (lead_id, created_at DESC);

      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door IN ('rest', 'mcp', 'admin', 'activity', 'public', 'agent'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM audit_log WHERE door = 'agent';
      ALTER TABLE audit_log DROP CONSTRAINT audit_log_door_check;
      ALTER TABLE audit_log ADD CONSTRAINT audit_log_door_check
        CHECK (door IN ('rest', 'mcp', 'admin', 'activity', 'public'));
      DROP TABLE handoffs, agent_actions, agent_drafts, agent_runs, agents;
    `);
  }
}
