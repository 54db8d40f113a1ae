import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createCampaignActivities } from '../../activities/campaign';
import { smtpProvider, type EmailProvider } from '../../activities/providers/email';
import { createCampaign } from '../../domain/campaigns/operations/create';
import { getCampaign } from '../../domain/campaigns/operations/get';
import { updateCampaign } from '../../domain/campaigns/operations/update';
import { launchCampaign } from '../../domain/campaigns/operations/launch';
import { pauseCampaign } from '../../domain/campaigns/operations/pause';
import { resumeCampaign } from '../../domain/campaigns/operations/resume';
import { campaignWaker } from '../../infra/temporal/campaigns';
import { campaignWorkflowId } from '../../infra/temporal/workflow-ids';
import type { CampaignInput } from '../../domain/campaigns/workflow-contract';
import { recordInboundMessage } from '../../domain/conversations/operations/message-inbound';
import type { Operation, Services } from '../../domain/kernel/operation';
import type * as yup from 'yup';
import { suppressContact } from '../../domain/leads/operations/contact-suppress';
import { SERVICE_DEFAULTS } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { startSmtpSink } from '../../tooling/smtp-sink';
import { timeSkippingEnvironment } from '../helpers/time-skipping';
import { waitFor } from '../../tooling/processes';
import { workflowCode } from '../helpers/workflow-code';
import { campaignWorkflow } from '../../workflows/campaign';
import { testServices } from '../../tooling/services';

const HOUR = 3_600_000;
const ALWAYS = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };

type Sent = { lead_id: string; campaign_step: number; status: string; at: Date; error: string | null };

describe('the campaign workflow under time-skipping: steps, window, pause, replies, crashes, 10,000 recipients', () => {
  let env: TestWorkflowEnvironment;
  let t: TestDatabase;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let email: EmailProvider;
  let services: Services;
  let n = 0;

  before(async () => {
    [env, t, smtp] = await Promise.all([timeSkippingEnvironment(), freshDatabase(), startSmtpSink()]);
    email = smtpProvider({ url: smtp.url, from: 'news@acme.example', pool: 5 });
    services = testServices(t.db, { campaigns: campaignWaker(() => Promise.resolve(env.client)) });
  });
  after(async () => {
    email.close();
    await env?.teardown();
    await smtp.stop();
    await t.drop();
  });

  /** A workspace with `leads` leads (emails lead<i>.<ws>@example.com), created in one statement. */
  async function workspace(leads: number) {
    const w = await workspaceWithKey(t.db);
    await t.db.query(
      `INSERT INTO leads (workspace_id, first_name, email, source, status, created_at)
       SELECT $1, 'Lead' || i, 'lead' || i || '.' || $2 || '@example.com', 'spring', 'NEW',
              clock_timestamp() - make_interval(secs => $3 - i)
         FROM generate_series(1, $3) AS i`,
      [w.workspace.id, w.workspace.id.slice(0, 8), leads],
    );
    return w.workspace;
  }
  const run = <S extends yup.AnyObjectSchema, O>(
    op: Operation<S, O>,
    input: Record<string, unknown>,
    workspaceId?: string,
  ) => asOperator(services, op, input, workspaceId ? { workspaceId } : {});

  /** Launches a campaign and runs its workflow on a worker with the real activities. */
  async function campaign(
    workspaceId: string,
    spec: Record<string, unknown>,
    opts: {
      batchSize?: number;
      concurrency?: number;
      batchesPerRun?: number;
      provider?: EmailProvider;
      during?: (h: { id: string; sent: () => number }) => Promise<void>;
    } = {},
  ) {
    const c = await run(createCampaign, { channel: 'email', window: ALWAYS, ...spec }, workspaceId);
    await run(launchCampaign, { campaignId: c.id });
    const taskQueue = `campaign-${++n}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      ...workflowCode(),
      activities: createCampaignActivities({
        services,
        email: opts.provider ?? email,
        publicUrl: 'https://leads.example.test',
        secretsKey: SERVICE_DEFAULTS.secretsKey,
        batchSize: opts.batchSize ?? 200,
        concurrency: opts.concurrency ?? 10,
      }),
    });
    const sentTo = () => smtp.received.filter((r) => r.mail.messageId?.includes('@acme.example')).length;
    const result = await worker.runUntil(async () => {
      const input: CampaignInput = { campaignId: c.id, batchesPerRun: opts.batchesPerRun };
      const handle = await env.client.workflow.start(campaignWorkflow, {
        taskQueue,
        workflowId: campaignWorkflowId(c.id),
        args: [input],
      });
      await opts.during?.({ id: c.id, sent: sentTo });
      const r = (await handle.result()) as { status: string };
      const { runId } = await handle.describe();
      return { ...r, firstRunId: handle.firstExecutionRunId, lastRunId: runId };
    });
    const sends = await t.db.query<Sent[]>(
      `SELECT lead_id, campaign_step, status, at, error FROM messages WHERE campaign_id = $1 ORDER BY at, lead_id`,
      [c.id],
    );
    return { id: c.id, result, sends };
  }
  const mailsFor = (campaignSends: { lead_id: string }[]) => campaignSends.length;

  it('sends each step after its delay, with the unsubscribe link, and reports performance per step', async () => {
    const ws = await workspace(3);
    const { id, result, sends } = await campaign(ws.id, {
      name: 'Spring',
      steps: [
        { subject: 'Hi {first_name}', body: 'Hello {first_name}, spring is here.', delay_hours: 0 },
        { subject: 'Still there, {first_name}?', body: 'A reminder from {workspace_name}.', delay_hours: 48 },
      ],
    });
    assert.equal(result.status, 'COMPLETED');
    assert.equal(sends.length, 6);
    assert.ok(sends.every((s) => s.status === 'sent'));
    const first = sends.filter((s) => s.campaign_step === 0);
    const second = sends.filter((s) => s.campaign_step === 1);
    const gap =
      Math.min(...second.map((s) => s.at.getTime())) - Math.max(...first.map((s) => s.at.getTime()));
    assert.ok(gap >= 48 * HOUR && gap < 49 * HOUR, `step 2 came ${gap / HOUR} h after step 1`);
    const mail = smtp.received.find((r) => r.mail.subject === 'Hi Lead1')!;
    assert.match(
      mail.mail.text!,
      /^Hello Lead1, spring is here\.\n\n--\nTo stop receiving these emails, unsubscribe: https:\/\/leads\.example\.test\/u\/[A-Za-z0-9_-]{54}\n?$/,
    );
    assert.match(mail.raw, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    const got = await run(getCampaign, { campaignId: id });
    assert.equal(got.data.status, 'COMPLETED');
    assert.deepEqual(
      got.performance.map((p) => [p.step, p.audience, p.sent, p.failed, p.skipped]),
      [
        [0, 3, 3, 0, 0],
        [1, 3, 3, 0, 0],
      ],
    );
  });

  it('skips a suppressed contact at send time and lets a lead who replied leave the sequence', async () => {
    const ws = await workspace(3);
    const [suppressed, replier] = await t.db.query<{ id: string; email: string }[]>(
      `SELECT id, email FROM leads WHERE workspace_id = $1 ORDER BY created_at LIMIT 2`,
      [ws.id],
    );
    await run(
      suppressContact,
      { address: suppressed!.email, channel: 'email', reason: 'unsubscribed' },
      ws.id,
    );
    const { sends } = await campaign(
      ws.id,
      {
        name: 'Two steps',
        steps: [
          { subject: 'One', body: 'First', delay_hours: 0 },
          { subject: 'Two', body: 'Second', delay_hours: 24 },
        ],
      },
      {
        during: async ({ sent }) => {
          await waitFor(
            'step 1 sent',
            async () => (sent() >= 0 && (await stepSent(0)) === 2) || undefined,
            15_000,
            50,
          );
          await run(recordInboundMessage, { leadId: replier!.id, channel: 'email', body: 'Interested!' });
        },
      },
    );
    async function stepSent(step: number) {
      const [{ n }] = await t.db.query<[{ n: number }]>(
        `SELECT count(*)::int AS n FROM messages m JOIN leads l ON l.id = m.lead_id
          WHERE l.workspace_id = $1 AND m.campaign_step = $2 AND m.status = 'sent'`,
        [ws.id, step],
      );
      return n;
    }
    const by = (lead: string) =>
      sends.filter((s) => s.lead_id === lead).map((s) => `${s.campaign_step}:${s.status}`);
    assert.deepEqual(by(suppressed!.id), ['0:suppressed'], 'suppressed: a visible skip, nothing sent');
    assert.deepEqual(by(replier!.id), ['0:sent'], 'the replier left after step 1');
    assert.equal(mailsFor(sends.filter((s) => s.status === 'sent')), 3);
    const [left] = await t.db.query(
      `SELECT status, left_reason FROM campaign_recipients WHERE lead_id = $1`,
      [replier!.id],
    );
    assert.deepEqual(left, { status: 'LEFT', left_reason: 'replied' });
  });

  it('sends only inside the sending window, in the workspace time zone', async () => {
    const ws = await workspace(2);
    const parisHour = Number(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Paris',
        hour: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(await env.currentTimeMs())),
    );
    const start = (parisHour + 3) % 23;
    const { sends } = await campaign(ws.id, {
      name: 'Windowed',
      window: { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: start, end_hour: start + 1 },
      steps: [{ subject: 'Hi', body: 'Hello', delay_hours: 0 }],
    });
    assert.equal(sends.length, 2);
    for (const s of sends) {
      const hour = Number(
        new Intl.DateTimeFormat('en-GB', {
          timeZone: 'Europe/Paris',
          hour: '2-digit',
          hourCycle: 'h23',
        }).format(s.at),
      );
      assert.equal(
        hour,
        start,
        `sent at ${s.at.toISOString()}, Paris hour ${hour}, window ${start}-${start + 1}`,
      );
    }
  });

  it('pauses before the next message and resumes where it stopped, sending nothing twice', async () => {
    const ws = await workspace(4);
    const { sends, result } = await campaign(
      ws.id,
      { name: 'Paused', steps: [{ subject: 'Hi', body: 'Hello', delay_hours: 0 }] },
      {
        batchSize: 1,
        concurrency: 1,
        during: async ({ id }) => {
          await waitFor(
            'the first message',
            async () => ((await countSent(id)) >= 1 ? true : undefined),
            15_000,
            20,
          );
          await run(pauseCampaign, { campaignId: id });
          const handle = env.client.workflow.getHandle(campaignWorkflowId(id));
          await waitFor(
            'the workflow waiting, paused',
            async () => ((await handle.describe()).raw.pendingActivities?.length ? undefined : true),
            15_000,
            20,
          );
          const atPause = await countSent(id);
          assert.ok(atPause < 4, `paused after ${atPause}`);
          await run(resumeCampaign, { campaignId: id });
        },
      },
    );
    async function countSent(id: string) {
      const [{ n }] = await t.db.query<[{ n: number }]>(
        `SELECT count(*)::int AS n FROM messages WHERE campaign_id = $1 AND status = 'sent'`,
        [id],
      );
      return n;
    }
    assert.equal(result.status, 'COMPLETED');
    assert.equal(sends.length, 4);
    assert.ok(sends.every((s) => s.status === 'sent'));
  });

  it('a batch cut off after the provider took some messages sends none of them twice', async () => {
    const ws = await workspace(6);
    let handed = 0;
    let crashed = false;
    // The worker "dies" after handing 3 messages to the SMTP server: its batch never records them.
    const crashing: EmailProvider = {
      ...email,
      send: async (m) => {
        const r = await email.send(m);
        if (!crashed && ++handed === 3) {
          crashed = true;
          throw new Error('worker killed mid-batch');
        }
        return r;
      },
    };
    const { sends, id } = await campaign(
      ws.id,
      { name: 'Crash', steps: [{ subject: 'Once', body: 'Only once', delay_hours: 0 }] },
      { provider: crashing, concurrency: 1 },
    );
    const ids = smtp.received
      .filter((r) => r.mail.subject === 'Once')
      .map((r) => r.mail.messageId!)
      .filter((mid) => sends.length > 0 && mid);
    assert.equal(new Set(ids).size, ids.length, 'no Message-ID arrived twice');
    const [{ n: rows }] = await t.db.query<[{ n: number }]>(
      `SELECT count(*)::int AS n FROM messages WHERE campaign_id = $1`,
      [id],
    );
    assert.equal(rows, 6, 'one row per recipient');
    const interrupted = sends.filter((s) => s.status === 'failed');
    // Only the message in hand when it died may have left: it fails visibly; the rest are sent.
    assert.equal(interrupted.length, 1);
    assert.match(interrupted[0]!.error!, /^interrupted/);
    assert.equal(sends.filter((s) => s.status === 'sent').length + interrupted.length, 6);
  });

  it('refuses, changing nothing: an audience that matches nobody, and editing a launched campaign', async () => {
    const ws = await workspace(2);
    const nobody = await run(
      createCampaign,
      { name: 'Won only', channel: 'email', audience: { statuses: ['WON'] }, steps: [{ body: 'Hi' }] },
      ws.id,
    );
    const err = await refusal(run(launchCampaign, { campaignId: nobody.id }));
    assert.equal(err.code, 'conflict');
    assert.match(err.message, /matches no live lead with an email address/);
    const [row] = await t.db.query(
      `SELECT status, audience_size, (SELECT count(*)::int FROM campaign_recipients WHERE campaign_id = $1) AS n
         FROM campaigns WHERE id = $1`,
      [nobody.id],
    );
    assert.deepEqual(row, { status: 'DRAFT', audience_size: null, n: 0 });
    const all = await run(createCampaign, { name: 'All', channel: 'email', steps: [{ body: 'Hi' }] }, ws.id);
    await run(launchCampaign, { campaignId: all.id });
    const edit = await refusal(run(updateCampaign, { campaignId: all.id, name: 'Renamed' }));
    assert.equal(edit.code, 'conflict');
    assert.match(edit.message, /only a draft can be edited/);
    assert.equal((await run(getCampaign, { campaignId: all.id })).data.name, 'All');
  });

  it('sends to 10,000 recipients through continue-as-new, each exactly once', async () => {
    const ws = await workspace(10_000);
    const before = smtp.received.length;
    const { result, sends } = await campaign(
      ws.id,
      {
        name: 'Big',
        steps: [{ subject: 'Big news', body: 'Hello {first_name}', delay_hours: 0 }],
        daily_cap: 100_000,
      },
      { batchSize: 500, batchesPerRun: 4, concurrency: 20 },
    );
    assert.equal(result.status, 'COMPLETED');
    assert.notEqual(result.firstRunId, result.lastRunId, 'it continued as new');
    assert.equal(sends.length, 10_000);
    assert.ok(sends.every((s) => s.status === 'sent'));
    const got = smtp.received.slice(before).filter((r) => r.mail.subject === 'Big news');
    assert.equal(got.length, 10_000);
    assert.equal(new Set(got.map((r) => r.mail.messageId)).size, 10_000);
  });
});
