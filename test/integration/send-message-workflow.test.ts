import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createSendActivities } from '../../activities/send-message';
import type { EmailProvider } from '../../activities/providers/email';
import { replyToConversation } from '../../domain/conversations/operations/conversation-reply';
import type { ProviderResult } from '../../domain/conversations/sending';
import { sendMessageWorkflow } from '../../workflows';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { createLead } from '../../domain/leads/operations/create';
import { intakeBody } from '../helpers/leads';
import { suppressContact } from '../../domain/leads/operations/contact-suppress';
import { timeSkippingEnvironment } from '../helpers/time-skipping';
import { randomUUID } from 'node:crypto';
import { workflowCode } from '../helpers/workflow-code';
import { testServices } from '../../tooling/services';

const MINUTE = 60_000;

type Row = { status: string; attempts: number; error: string | null };

describe('the sending workflow under time-skipping: the retry ladder, send-time checks, at most once', () => {
  let env: TestWorkflowEnvironment;
  let t: TestDatabase;
  let n = 0;
  before(async () => {
    [env, t] = await Promise.all([timeSkippingEnvironment(), freshDatabase()]);
  });
  after(async () => {
    await env?.teardown();
    await t?.drop();
  });

  /** A queued reply to a new lead, sent by the workflow through a scripted provider; each hand-over's (skipped) time. */
  async function send(
    script: (i: number) => ProviderResult | 'throw',
    before?: (lead: { email: string }) => Promise<void>,
  ) {
    const w = await workspaceWithKey(t.db);
    const services = testServices(t.db);
    const lead = await asOperator(
      services,
      createLead,
      { ...intakeBody(), idempotency_key: randomUUID() },
      { workspaceId: w.workspace.id },
    );
    const msg = await asOperator(services, replyToConversation, {
      leadId: lead.data!.id,
      channel: 'email',
      body: 'Hello',
    });
    await before?.({ email: lead.data!.email! });
    const at: number[] = [];
    const email: EmailProvider = {
      messageIdOf: (id) => `<${id}@test>`,
      close: () => undefined,
      send: async () => {
        at.push(await env.currentTimeMs());
        const r = script(at.length);
        if (r === 'throw') throw new Error('the worker died mid-hand-over');
        return r;
      },
    };
    const taskQueue = `send-${++n}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      ...workflowCode(),
      activities: createSendActivities({
        db: t.db,
        services,
        email,
        publicUrl: 'https://leads.example.test',
        secretsKey: Buffer.alloc(32, 1),
      }),
    });
    const result = await worker.runUntil(
      env.client.workflow.execute(sendMessageWorkflow, {
        taskQueue,
        workflowId: `message:${msg.id}`,
        args: [{ messageId: msg.id }],
      }),
    );
    const [row] = await t.db.query<Row[]>(`SELECT status, attempts, error FROM messages WHERE id = $1`, [
      msg.id,
    ]);
    return { result, row: row!, offsets: at.map((x) => x - at[0]!) };
  }

  it('retries a transient failure at 1 min, 5 min, 30 min ... and records the send', async () => {
    const { result, row, offsets } = await send((i) =>
      i < 4
        ? { kind: 'transient', error: 'SMTP 451: try later' }
        : { kind: 'sent', providerMessageId: '<x@test>' },
    );
    assert.deepEqual(result, { outcome: 'sent', attempts: 4 });
    assert.deepEqual(row, { status: 'sent', attempts: 4, error: null });
    const minutes = offsets.map((o) => Math.round(o / MINUTE));
    assert.deepEqual(minutes, [0, 1, 6, 36]);
  });

  it('gives up after six hand-overs over about 8.6 hours, visibly', async () => {
    const { result, row, offsets } = await send(() => ({ kind: 'transient', error: 'SMTP 421: busy' }));
    assert.deepEqual(result, { outcome: 'failed', attempts: 6 });
    assert.equal(row.status, 'failed');
    assert.match(row.error!, /^gave up after 6 attempts; the last said: SMTP 421: busy$/);
    assert.equal(Math.round(offsets.at(-1)! / MINUTE), 1 + 5 + 30 + 120 + 360);
  });

  it('a hand-over cut off (the worker died) is failed visibly and never sent again', async () => {
    const { result, row, offsets } = await send(() => 'throw');
    assert.equal(offsets.length, 1, 'handed over once, never again');
    assert.equal(result.outcome, 'failed');
    assert.match(row.error!, /^interrupted: /);
  });

  it('a timeout that may have reached the provider is not retried', async () => {
    const { row, offsets } = await send(() => ({ kind: 'transient', error: 'ETIMEDOUT', maybeSent: true }));
    assert.equal(offsets.length, 1);
    assert.equal(row.status, 'failed');
    assert.match(row.error!, /^interrupted: the provider may have taken it/);
  });

  it('a contact who opted out after the reply was queued is not sent to', async () => {
    const { result, row, offsets } = await send(
      () => ({ kind: 'sent', providerMessageId: '<never@test>' }),
      async ({ email }) => {
        const [{ workspace_id }] = await t.db.query(`SELECT workspace_id FROM leads WHERE email = $1`, [
          email,
        ]);
        await asOperator(
          testServices(t.db),
          suppressContact,
          { address: email, reason: 'unsubscribed' },
          { workspaceId: workspace_id },
        );
      },
    );
    assert.equal(offsets.length, 0);
    assert.deepEqual(result, { outcome: 'suppressed', attempts: 0 });
    assert.equal(row.status, 'suppressed');
    assert.match(row.error!, /opted out of email/);
  });
});
