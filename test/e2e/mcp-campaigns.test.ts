import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approveApproval } from '../../domain/approvals/operations/approve';
import type { ApprovalView } from '../../domain/approvals/views';
import { addMember } from '../../domain/identity/operations/member-add';
import { waitFor } from '../../tooling/processes';
import { startCampaignStack, type CampaignStack } from '../helpers/campaign-stack';
import { workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { mcpClient, structured, textOf } from '../helpers/mcp';
import type { WebhookStack } from '../helpers/webhook-stack';

const ALWAYS = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };

/** Campaigns through the official MCP client, with the real worker, approvals and an SMTP server. */
describe('campaigns through the assistant endpoint: gated send, launch and resume; pause at once', () => {
  let s: WebhookStack;
  let smtp: CampaignStack['smtp'];
  let api: CampaignStack['api'];
  let stack: CampaignStack;
  before(async () => {
    stack = await startCampaignStack();
    ({ s, smtp, api } = stack);
  });
  after(() => stack?.stop());

  async function setup(leads: number) {
    const w = await workspaceWithKey(s.db, {
      role: 'admin',
      scopes: ['campaigns:read', 'campaigns:write', 'leads:read', 'leads:write', 'business:read'],
    });
    const workspaceId = w.workspace.id;
    await s.run(
      addMember,
      { email: `owner.${workspaceId.slice(0, 8)}@example.com`, role: 'owner' },
      { workspaceId },
    );
    const emails: string[] = [];
    for (let i = 0; i < leads; i++) {
      const body = intakeBody({ source: `spring-${workspaceId.slice(0, 8)}` });
      assert.equal((await postLead(s.app, w.key.key, body)).status, 201);
      emails.push(body.email);
    }
    const mcp = await mcpClient(api.url, w.key.key, { protocolVersion: '2025-11-25' });
    const approve = async (approvalId: string) =>
      (await s.run(approveApproval, {
        id: approvalId,
        as: `owner.${workspaceId.slice(0, 8)}@example.com`,
      })) as ApprovalView;
    return { w, workspaceId, emails, mcp, approve, source: `spring-${workspaceId.slice(0, 8)}` };
  }
  const mailTo = (emails: string[], subject: string) =>
    smtp.received.filter((r) => r.mail.subject === subject && emails.some((e) => r.to.includes(e)));

  it('refuses bad input naming the field, and an audience that matches nobody, changing nothing', async () => {
    const { mcp } = await setup(0);
    const bad = await mcp.call('campaign.create', {
      name: 'Typo',
      channel: 'email',
      steps: [{ subject: 'Hi', body: 'Hello {frist_name}', delay_hours: 0 }],
    });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /steps\[0\]\.body has an unknown placeholder \{frist_name\}/);
    const made = await mcp.call('campaign.create', {
      name: 'Nobody',
      channel: 'email',
      audience: { statuses: ['WON'] },
      steps: [{ subject: 'Hi', body: 'Hello', delay_hours: 0 }],
      window: ALWAYS,
    });
    const id = structured<{ id: string }>(made).id;
    const parked = structured<{ approval_id: string }>(await mcp.call('campaign.send', { campaignId: id }));
    const [row] = await s.db.query(`SELECT status FROM campaigns WHERE id = $1`, [id]);
    assert.equal(row.status, 'DRAFT', 'parked: nothing happened');
    assert.ok(parked.approval_id);
    await mcp.client.close();
  });

  it('sends what the person approved: a text rewritten after the request is refused, and asked again it goes out as approved', async () => {
    const { mcp, approve, emails, source } = await setup(2);
    const created = await mcp.call('campaign.create', {
      name: 'Bound broadcast',
      channel: 'email',
      audience: { sources: [source] },
      steps: [{ subject: 'Approved {first_name}', body: 'The approved text.', delay_hours: 0 }],
      window: ALWAYS,
    });
    const id = structured<{ id: string }>(created).id;
    const first = structured<{ approval_id: string; summary: string }>(
      await mcp.call('campaign.send', { campaignId: id }),
    );
    assert.equal(first.summary, 'Send the email campaign "Bound broadcast" (1 step) to 2 people now');
    const rewritten = await mcp.call('campaign.update', {
      campaignId: id,
      steps: [{ subject: 'Rewritten {first_name}', body: 'Not what was approved.', delay_hours: 0 }],
    });
    assert.equal(
      rewritten.isError,
      undefined,
      'an edit while a request waits is allowed, and caught at approval',
    );
    const refused = await approve(first.approval_id);
    assert.equal(refused.status, 'FAILED');
    assert.match(refused.reason!, /^changed since approval was requested: steps\./);
    const seen = structured<{ status: string; reason: string }>(
      await mcp.call('approval.get', { approvalId: first.approval_id }),
    );
    assert.deepEqual([seen.status, seen.reason], ['FAILED', refused.reason]);

    // Asked again, the new text is what a person approves, and exactly it reaches exactly the audience.
    const second = structured<{ approval_id: string; created: boolean }>(
      await mcp.call('campaign.send', { campaignId: id }),
    );
    assert.notEqual(second.approval_id, first.approval_id, 'a new request for the changed campaign');
    assert.equal((await approve(second.approval_id)).status, 'EXECUTED');
    await waitFor(
      'the approved text at the SMTP server',
      async () => (mailTo(emails, 'Rewritten Ana').length === 2 ? true : undefined),
      20_000,
      50,
    );
    const sent = mailTo(emails, 'Rewritten Ana');
    assert.deepEqual(
      sent
        .map((r) => r.to)
        .flat()
        .sort(),
      [...emails].sort(),
    );
    for (const r of sent) assert.match(r.mail.text ?? '', /Not what was approved\./);
    assert.equal(mailTo(emails, 'Approved Ana').length, 0, 'the text no longer approved never left');
    await s.client.workflow
      .getHandle(`campaign:${id}`)
      .terminate('test over')
      .catch(() => undefined);
    await mcp.client.close();
  });

  it('parks send and launch; once approved the campaign runs once; pause is at once; resume parks, then runs', async () => {
    const { mcp, approve, emails, source } = await setup(3);
    const created = await mcp.call('campaign.create', {
      name: 'Spring sequence',
      channel: 'email',
      audience: { sources: [source] },
      steps: [
        { subject: 'Welcome {first_name}', body: 'Hello {first_name}', delay_hours: 0 },
        { subject: 'Day two', body: 'Again', delay_hours: 24 },
      ],
      window: ALWAYS,
    });
    const id = structured<{ id: string }>(created).id;

    const tooMany = await mcp.call('campaign.send', { campaignId: id });
    const sendParked = structured<{ status: string; approval_id: string; summary: string }>(tooMany);
    assert.equal(sendParked.status, 'pending_approval');
    assert.equal(sendParked.summary, 'Send the email campaign "Spring sequence" (2 steps) to 3 people now');
    const sendOutcome = await approve(sendParked.approval_id);
    assert.equal(sendOutcome.status, 'FAILED', 'a two-step campaign is not a broadcast');
    assert.match(sendOutcome.error!.message, /one-step broadcast/);

    const launched = await mcp.call('campaign.launch', { campaignId: id });
    const parked = structured<{ status: string; approval_id: string; summary: string }>(launched);
    assert.equal(parked.status, 'pending_approval');
    assert.match(textOf(launched), /^Nothing has happened yet\./);
    assert.equal(mailTo(emails, 'Welcome Ana').length, 0);
    const outcome = await approve(parked.approval_id);
    assert.equal(outcome.status, 'EXECUTED');
    await waitFor(
      'step 1 at the SMTP server',
      async () => (mailTo(emails, 'Welcome Ana').length === 3 ? true : undefined),
      20_000,
      50,
    );
    const handle = s.client.workflow.getHandle(`campaign:${id}`);
    assert.equal((await handle.describe()).status.name, 'RUNNING', 'waiting a day for step 2');

    const paused = await mcp.call('campaign.pause', { campaignId: id });
    assert.equal(structured<{ status: string }>(paused).status, 'PAUSED', 'pause runs at once');
    const resume = structured<{ status: string; approval_id: string }>(
      await mcp.call('campaign.resume', { campaignId: id }),
    );
    assert.equal(resume.status, 'pending_approval');
    assert.equal((await approve(resume.approval_id)).status, 'EXECUTED');
    const got = structured<{ data: { status: string }; performance: { step: number; sent: number }[] }>(
      await mcp.call('campaign.get', { campaignId: id }),
    );
    assert.equal(got.data.status, 'RUNNING');
    assert.deepEqual(
      got.performance.map((p) => [p.step, p.sent]),
      [
        [0, 3],
        [1, 0],
      ],
    );
    assert.equal(mailTo(emails, 'Welcome Ana').length, 3, 'each lead got step 1 once');
    await handle.terminate('test over');
    await mcp.client.close();
  });
});
