import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createMemberMailActivities } from '../../activities/member-mail';
import { smtpProvider, type EmailProvider } from '../../activities/providers/email';
import { queueMemberMail } from '../../domain/identity/member-mail';
import { inviteMember } from '../../domain/identity/operations/member-invite';
import { outboxes } from '../../domain/identity/outboxes';
import { unseal } from '../../domain/identity/sealing';
import { requestSignInLink } from '../../domain/identity/sign-in-links';
import { Data } from '../../domain/kernel/data';
import type { Services } from '../../domain/kernel/operation';
import { WORKSPACE_ID } from '../../domain/kernel/search-attributes';
import { allOutboxes } from '../../domain/registry';
import { memberMailStarter } from '../../infra/temporal/member-mail';
import { memberMailWorkflowId } from '../../infra/temporal/workflow-ids';
import type { memberMailWorkflow } from '../../workflows/member-mail';
import { testServices } from '../../tooling/services';
import { startSmtpSink, type SmtpSink } from '../../tooling/smtp-sink';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { timeSkippingEnvironment } from '../helpers/time-skipping';
import { workflowCode } from '../helpers/workflow-code';

const SECOND = 1_000;

/** Every text a workflow's history holds: its payloads decoded, its other fields as they are. */
function historyText(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return value.map(historyText).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(historyText).join('\n');
  return String(value);
}

describe('member mail: queued sealed, sent once through SMTP by its workflow, wiped once sent', () => {
  let env: TestWorkflowEnvironment;
  let t: TestDatabase;
  let sink: SmtpSink;
  let smtp: EmailProvider;
  let services: Services;
  let n = 0;

  before(async () => {
    [env, t, sink] = await Promise.all([timeSkippingEnvironment(), freshDatabase(), startSmtpSink()]);
    // An invitation's workflow carries its workspace as a search attribute; this server must know it.
    await env.connection.operatorService.addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: {
        [WORKSPACE_ID.name]: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      },
    });
    smtp = smtpProvider({ url: sink.url, from: 'console@leads.example.test', pool: 1 });
    services = testServices(t.db);
  });
  after(async () => {
    smtp?.close();
    await sink?.stop();
    await env?.teardown();
    await t?.drop();
  });

  /**
   * Starts the relay's way (the outbox's unstarted rows, each through the starter, then marked) and
   * runs the mail's workflow to its end on a worker whose SMTP provider is `email` (the real one by
   * default): its result or failure, when each hand-over happened (skipped time), and its history.
   */
  async function send(mailId: string, email: EmailProvider = smtp) {
    const taskQueue = `member-mail-${++n}`;
    const at: number[] = [];
    const counted: EmailProvider = {
      ...email,
      send: async (e) => {
        at.push(await env.currentTimeMs());
        return email.send(e);
      },
    };
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      ...workflowCode(),
      activities: createMemberMailActivities({ db: t.db, email: counted, secretsKey: services.secretsKey }),
    });
    const data = new Data(t.db.manager, undefined);
    const rows = await outboxes.memberMail.unstarted(data, 100, [], 'all');
    const row = rows.find((r) => r.id === mailId);
    assert.ok(row, 'the outbox offers the mail');
    await memberMailStarter(env.client, taskQueue)(row);
    await outboxes.memberMail.started!(data, row);
    const handle = env.client.workflow.getHandle<typeof memberMailWorkflow>(memberMailWorkflowId(mailId));
    const outcome = await worker.runUntil(
      handle.result().then(
        (r) => r,
        (err: unknown) => err,
      ),
    );
    const history = historyText(await handle.fetchHistory());
    return { outcome, offsets: at.map((x) => x - at[0]!), history };
  }

  const mailRow = async (id: string) =>
    (await t.db.query(`SELECT * FROM member_mail WHERE id = $1`, [id]))[0] as Record<string, unknown>;
  const lastMailTo = async (userId: string) =>
    (
      await t.db.query<{ id: string }[]>(
        `SELECT id FROM member_mail WHERE user_id = $1 ORDER BY created_at DESC LIMIT 1`,
        [userId],
      )
    )[0]!.id;

  /** A member with a sign-in link mailed to them, as the console queues it. */
  async function linkMailed() {
    const w = await workspaceWithKey(t.db);
    const data = new Data(t.db.manager, undefined);
    const link = await requestSignInLink(
      data,
      { email: w.email, browserBinding: randomBytes(32).toString('base64url'), ip: '127.0.0.1' },
      new Date(),
    );
    assert.ok('token' in link);
    const url = `${services.publicUrl}/app/sign-in/link/${link.token}`;
    await queueMemberMail(
      data,
      {
        userId: link.userId,
        workspaceId: null,
        kind: 'sign_in_link',
        subject: 'Your sign-in link',
        text: `Sign in within 15 minutes, from the browser you asked in:\n\n${url}\n`,
      },
      services.secretsKey,
    );
    return { email: w.email, token: link.token, url, mailId: await lastMailTo(link.userId) };
  }

  it('is one of the outboxes the relay reads', () => {
    assert.ok(allOutboxes().some((o) => o.name === 'member mail'));
  });

  it('an invitation names the sign-in page and leaves, once; the row keeps nothing of it', async () => {
    const w = await workspaceWithKey(t.db);
    const email = `invitee.${randomUUID().slice(0, 8)}@example.com`;
    const invited = await asOperator(
      services,
      inviteMember,
      { email, role: 'member' },
      { workspaceId: w.workspace.id },
    );
    assert.equal(invited.sign_in_url, `${services.publicUrl}/app/sign-in?email=${encodeURIComponent(email)}`);
    const mailId = await lastMailTo(invited.user_id);
    const queued = await mailRow(mailId);
    assert.equal(queued.kind, 'invitation');
    assert.equal(queued.status, 'queued');
    assert.equal(queued.workspace_id, w.workspace.id);
    const opened = unseal(queued.sealed as Buffer, services.secretsKey)!;
    assert.ok(opened.includes(invited.sign_in_url), 'sealed, and opens with the key');
    assert.ok(!(queued.sealed as Buffer).toString('latin1').includes('sign-in'), 'not in clear');

    const { outcome, history } = await send(mailId);
    assert.deepEqual(outcome, { attempts: 1 });
    const received = sink.received.filter((r) => r.to.includes(email));
    assert.equal(received.length, 1);
    assert.equal(received[0]!.mail.subject, `You are invited to ${w.workspace.name}`);
    assert.ok(received[0]!.mail.text!.includes(invited.sign_in_url));
    const sent = await mailRow(mailId);
    assert.equal(sent.status, 'sent');
    assert.equal(sent.sealed, null, 'wiped once sent');
    assert.ok(sent.sent_at instanceof Date && sent.started_at instanceof Date);
    assert.ok(!history.includes(email), 'no address in the workflow history');
  });

  it("a sign-in link leaves once; nothing of it stays in the row or the workflow's history", async () => {
    const { email, token, url, mailId } = await linkMailed();
    const { outcome, history } = await send(mailId);
    assert.deepEqual(outcome, { attempts: 1 });
    const received = sink.received.filter((r) => r.to.includes(email));
    assert.equal(received.length, 1);
    assert.ok(received[0]!.mail.text!.includes(url));
    assert.equal(received[0]!.mail.from?.value[0]?.address, 'console@leads.example.test');
    const row = (await t.db.query(`SELECT m::text AS row FROM member_mail m WHERE id = $1`, [mailId]))[0].row;
    assert.ok(!row.includes(token));
    assert.equal((await mailRow(mailId)).sealed, null);
    assert.ok(history.length > 0 && history.includes(mailId));
    assert.ok(!history.includes(token), 'no link in the history');
    assert.ok(!history.includes(email), 'no address in the history');

    // Asked again (a retry, a second start): answered from the record, never sent again.
    const activities = createMemberMailActivities({ db: t.db, email: smtp, secretsKey: services.secretsKey });
    assert.deepEqual(await activities.handOverMemberMail(mailId, 1), { done: 'sent' });
    assert.equal(sink.received.filter((r) => r.to.includes(email)).length, 1);
  });

  it('retries temporary failures on its ladder (30 s, 1 min, ...) and records the send', async () => {
    const { email, mailId } = await linkMailed();
    sink.down(451, 'Try again later');
    let calls = 0;
    const recovering: EmailProvider = {
      ...smtp,
      send: async (e) => {
        if (++calls === 3) sink.up();
        return smtp.send(e);
      },
    };
    const { outcome, offsets } = await send(mailId, recovering);
    sink.up();
    assert.deepEqual(outcome, { attempts: 3 });
    assert.deepEqual(
      offsets.map((o) => Math.floor(o / SECOND)),
      [0, 30, 90],
    );
    assert.equal(sink.received.filter((r) => r.to.includes(email)).length, 1);
    const row = await mailRow(mailId);
    assert.equal(row.status, 'sent');
    assert.equal(row.attempts, 3);
  });

  it('gives up visibly on a permanent refusal, without the address in what it records', async () => {
    const { email, mailId } = await linkMailed();
    sink.refuse(email, 550, `5.1.1 <${email}>: Recipient address rejected`);
    const { outcome, offsets, history } = await send(mailId);
    assert.ok(outcome instanceof WorkflowFailedError, 'the workflow fails');
    assert.match(String(outcome.cause?.message), /^the mail was not sent: SMTP 550/);
    assert.equal(offsets.length, 1, 'not retried');
    const row = await mailRow(mailId);
    assert.equal(row.status, 'failed');
    assert.equal(row.sealed, null, 'wiped: the link would only age');
    assert.match(String(row.error), /<the member>/);
    assert.ok(!String(row.error).includes(email) && !history.includes(email));
  });

  it('gives up after five hand-overs over eight and a half minutes', async () => {
    const { mailId } = await linkMailed();
    sink.down(421, 'Busy');
    const { outcome, offsets } = await send(mailId);
    sink.up();
    assert.ok(outcome instanceof WorkflowFailedError);
    assert.equal(offsets.length, 5);
    // The waits, plus each hand-over's own few milliseconds on the real SMTP server.
    const last = offsets.at(-1)! / SECOND;
    assert.ok(last >= 30 + 60 + 120 + 300 && last < 515, `last hand-over at ${last} s`);
    const row = await mailRow(mailId);
    assert.equal(row.status, 'failed');
    assert.match(String(row.error), /^gave up after its last attempt; the last said: SMTP 421/);
  });

  it('a hand-over found cut off is failed, never sent again', async () => {
    const { email, mailId } = await linkMailed();
    // As a worker killed mid-hand-over leaves it.
    await t.db.query(`UPDATE member_mail SET status = 'sending', attempts = 1 WHERE id = $1`, [mailId]);
    const { outcome, offsets } = await send(mailId);
    assert.ok(outcome instanceof WorkflowFailedError);
    assert.equal(offsets.length, 0);
    assert.equal(sink.received.filter((r) => r.to.includes(email)).length, 0);
    const row = await mailRow(mailId);
    assert.equal(row.status, 'failed');
    assert.match(String(row.error), /^interrupted: /);
  });
});
