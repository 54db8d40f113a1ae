import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createSalesActivities } from '../../activities/sales';
import type { Services } from '../../domain/kernel/operation';
import { acceptQuotePage } from '../../domain/sales/operations/quote-accept';
import { issueInvoice } from '../../domain/sales/operations/invoice-issue';
import { payInvoice } from '../../domain/sales/operations/invoice-pay';
import { addDays, dayIn } from '../../domain/sales/documents';
import { invoiceWorkflowId, quoteWorkflowId } from '../../infra/temporal/workflow-ids';
import type { InvoiceTimerInput, QuoteTimerInput } from '../../domain/sales/workflow-contract';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, workspaceWithKey } from '../helpers/fixtures';
import { LINES_TOTAL, draftQuote, leadIn, send, today } from '../helpers/sales';
import { SERVICE_DEFAULTS } from '../helpers/api';
import { timeSkippingEnvironment } from '../helpers/time-skipping';
import { workflowCode } from '../helpers/workflow-code';
import { invoiceDueWorkflow, quoteExpiryWorkflow } from '../../workflows/sales';
import { testServices } from '../../tooling/services';

const TASK_QUEUE = 'sales-timers-under-test';

type Row = Record<string, unknown>;

/**
 * The sales timers under time-skipping: a sent quote sleeps until the end of its valid-until day in
 * the workspace's zone and then expires unless settled; an issued invoice sleeps until its due date has
 * passed and then sends the first overdue reminder, unless paying cancelled it. The workflows are
 * started as the relay starts them (same type, id and input; the time-skipping server has no search
 * attributes, so not through the starter, which test/e2e/event-catalogue.test.ts runs on the dev server).
 */
describe('quote expiry and invoice overdue timers, under time-skipping', () => {
  let env: TestWorkflowEnvironment;
  let t: TestDatabase;
  let worker: Worker;
  let running: Promise<void>;
  let services: Services;
  let workspaceId: string;

  before(async () => {
    [env, t] = await Promise.all([timeSkippingEnvironment(), freshDatabase()]);
    services = testServices(t.db, {
      // The quote page checks the derived links the worker would have emailed (test/helpers/sales.ts).
      secretsKey: SERVICE_DEFAULTS.secretsKey,
      cancelTimers: {
        invoiceDue: async (id) => {
          await env.client.workflow.getHandle(invoiceWorkflowId(id)).cancel();
        },
      },
    });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      ...workflowCode(),
      activities: createSalesActivities(services),
    });
    running = worker.run();
    workspaceId = (await workspaceWithKey(t.db)).workspace.id;
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await t?.drop();
  });

  const row = async (table: 'quotes' | 'invoices', id: string) =>
    (await t.db.query<Row[]>(`SELECT * FROM ${table} WHERE id = $1`, [id]))[0]!;
  const events = (type: string, subjectId: string) =>
    t.db.query<{ data: Row }[]>(`SELECT data FROM events WHERE type = $1 AND data->>'subject_id' = $2`, [
      type,
      subjectId,
    ]);
  /** The one timer a workflow started, in milliseconds, from its history. */
  const timerMs = async (workflowId: string) => {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const started = history.events!.find((e) => e.timerStartedEventAttributes);
    const t = started!.timerStartedEventAttributes!.startToFireTimeout!;
    return Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6);
  };
  const startQuoteTimer = async (quoteId: string) => {
    const q = await row('quotes', quoteId);
    const input: QuoteTimerInput = { quoteId, expiresAt: (q.expires_at as Date).toISOString() };
    const startedAt = await env.currentTimeMs();
    const handle = await env.client.workflow.start(quoteExpiryWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: quoteWorkflowId(quoteId),
      args: [input],
    });
    return { handle, expiresAt: q.expires_at as Date, startedAt };
  };
  const acceptedQuote = async () => {
    const lead = await leadIn(services, workspaceId);
    const q = await draftQuote(services, workspaceId, lead.id);
    const { token } = await send(services, q.id);
    await asOperator(services, acceptQuotePage, { token, name: 'Ana Lima', consent: true });
    return q;
  };
  /** The day `n` days after the time-skipping server's now (which earlier tests moved on), in Paris. */
  const daysAhead = async (n: number) => {
    const now = await env.currentTimeMs();
    return addDays(dayIn(new Date(now), 'Europe/Paris'), n);
  };
  const startInvoiceTimer = async (invoiceId: string) => {
    const i = await row('invoices', invoiceId);
    const input: InvoiceTimerInput = { invoiceId, dueAt: (i.due_at as Date).toISOString() };
    const startedAt = await env.currentTimeMs();
    const handle = await env.client.workflow.start(invoiceDueWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: invoiceWorkflowId(invoiceId),
      args: [input],
    });
    return { handle, dueAt: i.due_at as Date, startedAt };
  };

  it('a quote valid until today expires at midnight in the workspace zone: EXPIRED and quote.expired', async () => {
    const lead = await leadIn(services, workspaceId);
    const q = await draftQuote(services, workspaceId, lead.id, { valid_until: today() });
    await send(services, q.id);
    const { handle, expiresAt, startedAt } = await startQuoteTimer(q.id);
    // The end of today in Europe/Paris (the workspace's zone): midnight there, 22:00 or 23:00 UTC.
    assert.equal(
      new Date(expiresAt.getTime() - 1).toLocaleDateString('en-CA', { timeZone: 'Europe/Paris' }),
      today(),
    );
    assert.equal(expiresAt.toLocaleTimeString('en-GB', { timeZone: 'Europe/Paris' }), '00:00:00');
    assert.equal(await handle.result(), 'EXPIRED');
    const slept = await timerMs(handle.workflowId);
    assert.ok(
      Math.abs(slept - (expiresAt.getTime() - startedAt)) < 5_000,
      `slept ${slept} ms until the expiry`,
    );
    assert.equal((await row('quotes', q.id)).status, 'EXPIRED');
    const [expired] = await events('quote.expired', q.id);
    assert.equal(expired!.data.valid_until, today());
    assert.equal(expired!.data.revision, 1);
  });

  it('an accepted quote is left alone when its timer fires: no quote.expired', async () => {
    const q = await acceptedQuote();
    const { handle } = await startQuoteTimer(q.id);
    assert.equal(await handle.result(), 'ACCEPTED');
    assert.equal((await row('quotes', q.id)).status, 'ACCEPTED');
    assert.equal((await events('quote.expired', q.id)).length, 0);
  });

  it('an unpaid invoice, once its due date has passed: the first reminder queued by email and invoice.overdue with the amount due', async () => {
    const q = await acceptedQuote();
    // The server's clock has skipped past earlier tests' timers: a due date two days after its now.
    const dueDate = await daysAhead(2);
    const invoice = (await asOperator(services, issueInvoice, { quote: q.id, due_date: dueDate })) as Row;
    const { handle, dueAt, startedAt } = await startInvoiceTimer(invoice.id as string);
    assert.equal(await handle.result(), true);
    const slept = await timerMs(handle.workflowId);
    assert.ok(
      Math.abs(slept - (dueAt.getTime() - startedAt)) < 5_000,
      `slept ${slept} ms until the due date passed`,
    );
    const after = await row('invoices', invoice.id as string);
    assert.ok(after.overdue_at, 'reminded');
    const [overdue] = await events('invoice.overdue', invoice.id as string);
    assert.equal(overdue!.data.amount_due, LINES_TOTAL);
    assert.equal(overdue!.data.reminder_message_id, after.reminder_message_id);
    const [mail] = await t.db.query<Row[]>(`SELECT subject, body, status FROM messages WHERE id = $1`, [
      after.reminder_message_id,
    ]);
    assert.equal(mail!.subject, `Invoice ${String(invoice.number)} is overdue`);
    assert.equal(mail!.status, 'queued');
    assert.match(String(mail!.body), /€1,400\.00 is still open/);
  });

  it('paying cancels the timer: the workflow ends cancelled and no reminder goes out', async () => {
    const q = await acceptedQuote();
    const invoice = (await asOperator(services, issueInvoice, {
      quote: q.id,
      due_date: await daysAhead(5),
    })) as Row;
    const { handle } = await startInvoiceTimer(invoice.id as string);
    await asOperator(services, payInvoice, { invoice: invoice.id });
    await assert.rejects(handle.result(), (err: unknown) => err instanceof WorkflowFailedError);
    assert.equal((await handle.describe()).status.name, 'CANCELLED');
    const after = await row('invoices', invoice.id as string);
    assert.equal(after.status, 'PAID');
    assert.equal(after.overdue_at, null);
    assert.equal((await events('invoice.overdue', invoice.id as string)).length, 0);
  });
});
