import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { approveApproval } from '../../domain/approvals/operations/approve';
import { showApproval } from '../../domain/approvals/operations/show';
import { approvalText } from '../../domain/approvals/show';
import type { ApprovalView } from '../../domain/approvals/views';
import { addMember } from '../../domain/identity/operations/member-add';
import { suppressContact } from '../../domain/leads/operations/contact-suppress';
import { waitFor } from '../../tooling/processes';
import { startCampaignStack, type CampaignStack } from '../helpers/campaign-stack';
import { workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { mcpClient, structured } from '../helpers/mcp';
import type { WebhookStack } from '../helpers/webhook-stack';

const ALWAYS = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };

type Campaign = { id: string; status: string; audience_size: number | null; left_out: unknown };

/**
 * An approval binds its people: the leads counted when a send parked are the only ones its approved run
 * can reach. Through the official MCP client, the real worker, approvals on Temporal and an SMTP server.
 */
describe('an approved send reaches only the people counted when it was asked', () => {
  let s: WebhookStack;
  let smtp: CampaignStack['smtp'];
  let api: CampaignStack['api'];
  let stack: CampaignStack;
  before(async () => {
    stack = await startCampaignStack();
    ({ s, smtp, api } = stack);
  });
  after(() => stack?.stop());

  /** A workspace with `leads` NEW leads from one source, its assistant's MCP client, and an owner who approves. */
  async function setup(leads: number) {
    const w = await workspaceWithKey(s.db, {
      role: 'admin',
      scopes: ['campaigns:read', 'campaigns:write', 'leads:read', 'leads:write', 'business:read'],
    });
    const workspaceId = w.workspace.id;
    const owner = `owner.${workspaceId.slice(0, 8)}@example.com`;
    await s.run(addMember, { email: owner, role: 'owner' }, { workspaceId });
    const source = `swap-${workspaceId.slice(0, 8)}`;
    const people: { id: string; email: string }[] = [];
    for (let i = 0; i < leads; i++) {
      const res = await postLead(s.app, w.key.key, intakeBody({ source }));
      assert.equal(res.status, 201);
      const lead = res.body.data as { id: string; email: string; status: string };
      assert.equal(lead.status, 'NEW');
      people.push({ id: lead.id, email: lead.email });
    }
    const mcp = await mcpClient(api.url, w.key.key, { protocolVersion: '2025-11-25' });
    /** Moves leads to a status as the assistant does, each through `lead.set_status`. */
    const move = async (who: { id: string }[], status: string) => {
      for (const p of who) {
        const r = await mcp.call('lead.set_status', { leadId: p.id, status });
        assert.equal(r.isError, undefined, JSON.stringify(r.content));
      }
    };
    /** A one-step broadcast to the CONTACTED leads of the source, parked by the assistant. */
    const parkSend = async (subject: string) => {
      const created = await mcp.call('campaign.create', {
        name: subject,
        channel: 'email',
        audience: { statuses: ['CONTACTED'], sources: [source] },
        steps: [{ subject, body: 'Hello {first_name}', delay_hours: 0 }],
        window: ALWAYS,
      });
      const id = structured<{ id: string }>(created).id;
      const parked = structured<{ status: string; approval_id: string; summary: string }>(
        await mcp.call('campaign.send', { campaignId: id }),
      );
      assert.equal(parked.status, 'pending_approval');
      return { id, parked };
    };
    const show = async (approvalId: string) => approvalText(await s.run(showApproval, { id: approvalId }));
    const approve = async (approvalId: string) =>
      (await s.run(approveApproval, { id: approvalId, as: owner })) as ApprovalView;
    const get = async (id: string) =>
      structured<{ data: Campaign; performance: { sent: number; skipped: number }[] }>(
        await mcp.call('campaign.get', { campaignId: id }),
      );
    return { workspaceId, people, mcp, move, parkSend, show, approve, get };
  }

  const mailTo = (people: { email: string }[], subject: string) =>
    smtp.received.filter(
      (r) => r.mail.subject === subject && people.some((p) => r.to.some((to) => to.includes(p.email))),
    );
  const allMail = (subject: string) => smtp.received.filter((r) => r.mail.subject === subject);

  it('the swap: three counted leave, three others join; `approval show` says so, and the approval mails none of those who joined', async () => {
    const { people, mcp, move, parkSend, show, approve, get } = await setup(6);
    const counted = people.slice(0, 3);
    const others = people.slice(3);
    await move(counted, 'CONTACTED');
    const subject = 'Swap offer';
    const { id, parked } = await parkSend(subject);
    assert.equal(parked.summary, `Send the email campaign "${subject}" (1 step) to 3 people now`);
    const before = await show(parked.approval_id);
    assert.match(before, /Whom it reaches \(audience\), as counted when asked: 3 people/);
    for (const p of counted) assert.ok(before.includes(`Ana Lima <${p.email}>`), 'the counted, by name');
    assert.match(before, /^Since it was asked: unchanged\.$/m);

    // The attack: the people counted move out of the audience and three nobody saw move in.
    await move(counted, 'QUALIFIED');
    await move(others, 'CONTACTED');
    const after = await show(parked.approval_id);
    assert.match(
      after,
      /^Since it was asked: audience changed: 3 left, 3 joined; approving it reaches only the 0 people counted who still qualify, and leaves out the 3 who joined\.$/m,
    );
    assert.doesNotMatch(after, /unchanged/);

    const outcome = await approve(parked.approval_id);
    assert.equal(outcome.status, 'FAILED');
    assert.equal(
      outcome.reason,
      'none of the 3 people approved still match the audience, and the 3 people who joined it since were not approved: nothing was sent; ask for approval again.',
    );
    const seen = structured<{ status: string; reason: string }>(
      await mcp.call('approval.get', { approvalId: parked.approval_id }),
    );
    assert.deepEqual([seen.status, seen.reason], ['FAILED', outcome.reason]);
    const campaign = await get(id);
    assert.deepEqual([campaign.data.status, campaign.data.audience_size], ['DRAFT', null]);
    const [queued] = await s.db.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM campaign_recipients WHERE campaign_id = $1',
      [id],
    );
    assert.equal(queued!.n, 0, 'nobody was queued');
    assert.equal(mailTo(others, subject).length, 0, 'the three nobody saw were not mailed');
    assert.equal(allMail(subject).length, 0);
    await mcp.client.close();
  });

  it('a partial swap: the counted who still qualify are mailed, the one who left and the two who joined are not, and campaign.get says why', async () => {
    const { workspaceId, people, mcp, move, parkSend, show, approve, get } = await setup(6);
    const counted = people.slice(0, 4);
    await move(counted, 'CONTACTED');
    const subject = 'Partial offer';
    const { id, parked } = await parkSend(subject);
    assert.equal(parked.summary, `Send the email campaign "${subject}" (1 step) to 4 people now`);
    const [left, ...staying] = counted;
    const joined = people.slice(4);
    await move([left!], 'QUALIFIED');
    await move(joined, 'CONTACTED');
    // Opted out after it was asked: counted, still in the audience, but never written to.
    const optedOut = staying[2]!;
    await s.run(
      suppressContact,
      { address: optedOut.email, channel: 'email', reason: 'unsubscribed' },
      { workspaceId },
    );
    assert.match(
      await show(parked.approval_id),
      /^Since it was asked: audience changed: 1 left, 2 joined; approving it reaches only the 3 people counted who still qualify, and leaves out the 2 who joined\.$/m,
    );

    const outcome = await approve(parked.approval_id);
    assert.equal(outcome.status, 'EXECUTED', JSON.stringify(outcome.error));
    const leftOut = { joined_since: 2, no_longer_qualify: 1 };
    assert.deepEqual(
      (outcome.outcome as Campaign).left_out,
      leftOut,
      'the run’s result says who was left out',
    );
    const mailed = staying.slice(0, 2);
    await waitFor(
      'the approved send to finish',
      async () => ((await get(id)).data.status === 'COMPLETED' ? true : undefined),
      30_000,
      100,
    );
    assert.deepEqual(
      mailTo(people, subject)
        .flatMap((r) => r.to)
        .sort(),
      mailed.map((p) => p.email).sort(),
      'only the counted who still qualify',
    );
    assert.equal(allMail(subject).length, 2);
    const campaign = await get(id);
    assert.equal(campaign.data.audience_size, 3);
    assert.deepEqual(campaign.data.left_out, leftOut);
    assert.deepEqual(
      campaign.performance.map((p) => [p.sent, p.skipped]),
      [[2, 1]],
      'the opted-out one skipped',
    );
    await mcp.client.close();
  });
});
