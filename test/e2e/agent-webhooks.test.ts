import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAgentNow } from '../../domain/agents/operations/run-now';
import { createAgent } from '../../domain/agents/operations/create';
import { recordInboundMessage } from '../../domain/conversations/operations/message-inbound';
import { approveProspect } from '../../domain/prospects/operations/approve';
import { importProspects } from '../../domain/prospects/operations/prospect-import';
import { listProspects } from '../../domain/prospects/operations/list';
import { waitFor } from '../../tooling/processes';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { zoneAtNoon } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

type Received = { ok: boolean; data: Record<string, unknown> };

/** What an agent causes, as a customer's endpoint receives it: signed deliveries with the spec's fields. */
describe("an agent's and a prospect's events, delivered as webhooks", () => {
  let s: WebhookStack;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  before(async () => {
    smtp = await startSmtpSink();
    s = await startWebhookStack({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'team@acme.example' } });
    rx = await startReceiver();
    await s.endpoint(rx, [
      'lead.status_changed',
      'ai.escalated',
      'lead.handover_required',
      'lead.created',
      'lead.touched',
    ]);
    await s.db.query(`UPDATE workspaces SET timezone = $2 WHERE id = $1`, [s.workspace.id, zoneAtNoon()]);
  });
  after(async () => {
    await s.stop();
    await rx.close();
    await smtp.stop();
  });

  const received = (type: string, leadId: string) =>
    waitFor(
      `${type} for ${leadId}`,
      async () =>
        rx
          .ofType(type)
          .map((r): Received => ({
            ok: r.helperOk,
            ...(JSON.parse(r.body) as { data: Record<string, unknown> }),
          }))
          .find((e) => e.data.lead_id === leadId),
      30_000,
      50,
    );

  it('lead.status_changed by the agent, then ai.escalated and lead.handover_required when a reply needs a person', async () => {
    const lead = (await postLead(s.app, s.key, intakeBody({ source: 'agent-hooks' }))).body.data as {
      id: string;
      email: string;
    };
    const workspaceId = s.workspace.id;
    const agent = (await s.run(
      createAgent,
      { name: 'Chaser', type: 'follow_up', sources: { lead_sources: ['agent-hooks'] }, review_level: 'send' },
      { workspaceId },
    )) as { id: string };
    await s.run(runAgentNow, { agentId: agent.id });

    const moved = await received('lead.status_changed', lead.id);
    assert.ok(moved.ok, 'signed');
    assert.equal(moved.data.status, 'CONTACTED');
    assert.equal(moved.data.previous_status, 'NEW');
    assert.deepEqual(moved.data.changed_by, { type: 'agent', agent_id: agent.id });
    await waitFor(
      'the chase at the SMTP server',
      async () => smtp.received.some((r) => r.to.includes(lead.email)) || undefined,
      20_000,
    );

    await s.run(recordInboundMessage, {
      leadId: lead.id,
      channel: 'email',
      body: 'This is unacceptable. I want to make a complaint.',
    });
    const escalated = await received('ai.escalated', lead.id);
    assert.ok(escalated.ok, 'signed');
    const [handoff] = await s.db.query<{ id: string }[]>(`SELECT id FROM handoffs WHERE lead_id = $1`, [
      lead.id,
    ]);
    assert.deepEqual(
      { ...escalated.data, occurred_at: undefined },
      {
        handoff_id: handoff!.id,
        lead_id: lead.id,
        conversation_id: `${lead.id}:email`,
        reason: 'complaint',
        priority: 'high',
        subject_type: 'lead',
        subject_id: lead.id,
        occurred_at: undefined,
      },
    );
    const handover = await received('lead.handover_required', lead.id);
    assert.ok(handover.ok, 'signed');
    assert.deepEqual(
      { ...handover.data, occurred_at: undefined },
      {
        lead_id: lead.id,
        reason: 'complaint',
        handoff_id: handoff!.id,
        priority: 'high',
        subject_type: 'lead',
        subject_id: lead.id,
        occurred_at: undefined,
      },
    );
  });

  it('lead.created with source type prospecting when a person approves a prospect; lead.touched when it matched a lead', async () => {
    const workspaceId = s.workspace.id;
    const known = (await postLead(s.app, s.key, intakeBody({ source: 'ads' }))).body.data as {
      id: string;
      email: string;
    };
    const csv = path.join(mkdtempSync(path.join(tmpdir(), 'hooks-')), 'list.csv');
    writeFileSync(
      csv,
      `email,first_name,company\nnew.prospect@example.com,Nia,Acme\n${known.email},Kim,Beta\n`,
    );
    await s.run(importProspects, { file: csv, list: 'Webhook list' }, { workspaceId });
    const listed = (await s.run(listProspects, { list: 'Webhook list' }, { workspaceId })) as {
      data: { id: string; email: string }[];
    };
    const [fresh, matched] = ['new.prospect@example.com', known.email].map((e) =>
      listed.data.find((p) => p.email === e)!,
    );
    const approved = (await s.run(approveProspect, { prospectId: fresh!.id })) as { lead_id: string };
    const created = await received('lead.created', approved.lead_id);
    assert.ok(created.ok, 'signed');
    assert.equal(created.data.source_type, 'prospecting');
    assert.equal(created.data.source, 'Webhook list');
    assert.equal(created.data.email, 'new.prospect@example.com');
    await s.run(approveProspect, { prospectId: matched!.id });
    const touched = await waitFor(
      'lead.touched from the prospect',
      async () =>
        rx
          .ofType('lead.touched')
          .map((r): Received => ({
            ok: r.helperOk,
            ...(JSON.parse(r.body) as { data: Record<string, unknown> }),
          }))
          .find((e) => e.data.lead_id === known.id && e.data.source_type === 'prospecting'),
      30_000,
      50,
    );
    assert.ok(touched.ok, 'signed');
    assert.equal(touched.data.outcome, 'MERGED');
    assert.equal(touched.data.source, 'Webhook list');
  });
});
