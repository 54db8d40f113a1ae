import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type * as yup from 'yup';
import { createAgentRunActivities } from '../../activities/agent-run';
import { createSourcingActivities } from '../../activities/sourcing';
import { createAgent } from '../../domain/agents/operations/create';
import type { Operation, Services } from '../../domain/kernel/operation';
import { approveProspect } from '../../domain/prospects/operations/approve';
import { getProspect } from '../../domain/prospects/operations/get';
import { importProspects } from '../../domain/prospects/operations/prospect-import';
import { listProspects } from '../../domain/prospects/operations/list';
import { rejectProspect } from '../../domain/prospects/operations/reject';
import { startProspectSourcing } from '../../domain/prospects/operations/start-sourcing';
import { suppressContact } from '../../domain/leads/operations/contact-suppress';
import { PROSPECT_SCORING_VERSION } from '../../domain/prospects/scoring';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { asOperator, refusal, workspaceWithKey } from '../helpers/fixtures';
import { eventsFor } from '../helpers/leads';
import { timeSkippingEnvironment } from '../helpers/time-skipping';
import { workflowCode } from '../helpers/workflow-code';
import { agentRunWorkflow } from '../../workflows/agent-run';
import { sourcingWorkflow } from '../../workflows/sourcing';
import { testServices } from '../../tooling/services';

const TASK_QUEUE = 'prospects-under-test';

const CSV = [
  'Email,First Name,last_name,company,industry,Job Title,country',
  'ana@acme.example,Ana,Lopez,Acme,Dental clinics,Owner,FR',
  'not-an-email,Bo,,,,,',
  ',,NoContact,,,,',
  'carl@beta.example,Carl,,Beta,Software,Manager,Germany',
  'ANA@acme.example,Ana,L,Acme,,,',
  '"dee@gamma.example","Dee","O""Neil","Gamma, Inc.","Dental, ortho","Head of sales",France',
  '"eve@delta.example",Eve,"Two',
  'lines",Delta,Dental clinics,Assistant,FR',
].join('\n');

type Prospect = {
  id: string;
  email: string | null;
  status: string;
  score: number | null;
  reasons: { code: string; points: number }[];
  scoring_version: string | null;
  dropped_reason: string | null;
  source: { list: string | null; line: number };
};

describe('prospects: CSV import, sourcing runs, approval through the intake', () => {
  let t: TestDatabase;
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let working: Promise<void>;
  let services: Services;
  const dir = mkdtempSync(path.join(tmpdir(), 'prospects-'));
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  before(async () => {
    [t, env] = await Promise.all([freshDatabase(), timeSkippingEnvironment()]);
    services = testServices(t.db);
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      ...workflowCode(),
      activities: { ...createSourcingActivities(services), ...createAgentRunActivities(services) },
    });
    working = worker.run();
  });
  after(async () => {
    worker?.shutdown();
    await working;
    await env?.teardown();
    await t.drop();
  });

  const run = <S extends yup.AnyObjectSchema, O>(
    op: Operation<S, O>,
    input: Record<string, unknown>,
    workspaceId?: string,
  ) => asOperator(services, op, input, workspaceId ? { workspaceId } : {});

  async function workspace() {
    const w = await workspaceWithKey(t.db, { scopes: ['prospects:read', 'prospects:write'] });
    await t.db.query(`UPDATE workspaces SET industry = 'Dental clinics' WHERE id = $1`, [w.workspace.id]);
    return w.workspace.id;
  }
  /** Runs a sourcing run's workflow, as the relay starts it, to its end. */
  const source = (runId: string): Promise<{ scored: number; dropped: number }> =>
    env.client.workflow.execute(sourcingWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: `sourcing:${runId}`,
      args: [{ runId }],
    });
  const byEmail = async (workspaceId: string) => {
    const all = (await run(listProspects, { limit: 100 }, workspaceId)).data as Prospect[];
    const out: Record<string, Prospect> = {};
    for (const p of all) out[p.email!] = p;
    return out;
  };

  it('imports a CSV streamed by csv-parse: bad rows reported by line and skipped, the rest stored; twice adds nothing', async () => {
    const workspaceId = await workspace();
    const csv = file('q4.csv', CSV);
    const first = await run(importProspects, { file: csv, list: 'Q4 dentists' }, workspaceId);
    assert.equal(first.rows, 7);
    assert.equal(first.imported, 4);
    assert.equal(first.already_present, 1, 'ANA@ is ana@ again');
    assert.equal(first.bad_rows, 2);
    assert.deepEqual(first.bad, [
      { line: 3, field: 'email', reason: 'email is not an email address' },
      { line: 4, reason: 'the row has neither an email nor a phone' },
    ]);
    const again = await run(importProspects, { file: csv, list: 'Q4 dentists' }, workspaceId);
    assert.deepEqual(
      [again.imported, again.already_present, again.bad_rows, again.list.id],
      [0, 5, 2, first.list.id],
    );
    const stored = await byEmail(workspaceId);
    assert.deepEqual(Object.keys(stored).sort(), [
      'ana@acme.example',
      'carl@beta.example',
      'dee@gamma.example',
      'eve@delta.example',
    ]);
    assert.equal(stored['eve@delta.example']!.source.line, 9, 'the last line of a record with a line break');
    const dee = (await run(getProspect, { prospectId: stored['dee@gamma.example']!.id })) as unknown as {
      last_name: string;
      company: string;
      source: { list: string; line: number };
    };
    assert.deepEqual(
      [dee.last_name, dee.company, dee.source],
      [
        'O"Neil',
        'Gamma, Inc.',
        { list: 'Q4 dentists', list_id: first.list.id, line: 7, sourcing_run_id: null },
      ],
    );
  });

  it('refuses a file with a wrong header, naming the column, and stores nothing', async () => {
    const workspaceId = await workspace();
    const err = await refusal(
      run(
        importProspects,
        { file: file('typo.csv', 'emial,first_name\nx@y.example,X\n'), list: 'Typo' },
        workspaceId,
      ),
    );
    assert.equal(err.code, 'invalid_request');
    assert.equal(err.details.field, 'file');
    assert.match(err.message, /unknown column "emial"; accepted columns: email, phone/);
    const noContact = await refusal(
      run(
        importProspects,
        { file: file('nocontact.csv', 'first_name,company\nX,Y\n'), list: 'Typo' },
        workspaceId,
      ),
    );
    assert.match(noContact.message, /needs an email or a phone column/);
    const [{ n }] = await t.db.query(
      `SELECT (SELECT count(*) FROM prospect_lists WHERE workspace_id = $1)::int +
              (SELECT count(*) FROM prospects WHERE workspace_id = $1)::int AS n`,
      [workspaceId],
    );
    assert.equal(n, 0);
    const missing = await refusal(
      run(importProspects, { file: path.join(dir, 'none.csv'), list: 'X' }, workspaceId),
    );
    assert.equal(missing.details.field, 'file');
  });

  it('scores a list in a sourcing workflow with versioned rules and reasons; drops leads and suppressed contacts', async () => {
    const workspaceId = await workspace();
    await run(importProspects, { file: file('score.csv', CSV), list: 'Scored' }, workspaceId);
    await t.db.query(
      `INSERT INTO leads (workspace_id, first_name, email, source) VALUES ($1, 'Carl', 'carl@beta.example', 'ads')`,
      [workspaceId],
    );
    await run(suppressContact, { address: 'dee@gamma.example' }, workspaceId);
    const limited = await run(startProspectSourcing, { list: 'Scored', limit: 2 }, workspaceId);
    assert.equal(limited.status, 'RUNNING');
    assert.equal(limited.workflow_id, `sourcing:${limited.id}`);
    assert.deepEqual(await source(limited.id), { scored: 1, dropped: 1 }, 'the two oldest: ana, carl');
    const all = await run(startProspectSourcing, { list: 'Scored' }, workspaceId);
    assert.deepEqual(await source(all.id), { scored: 1, dropped: 1 }, 'the rest: dee, eve');

    const p = await byEmail(workspaceId);
    const ana = p['ana@acme.example']!;
    assert.equal(ana.status, 'SCORED');
    assert.equal(ana.scoring_version, PROSPECT_SCORING_VERSION);
    assert.deepEqual(
      ana.reasons.map((r) => [r.code, r.points]),
      [
        ['industry_match', 40],
        ['area_match', 20],
        ['decision_maker', 25],
        ['completeness', 13],
      ],
    );
    assert.equal(ana.score, 98);
    const eve = p['eve@delta.example']!;
    assert.deepEqual(
      [eve.score, eve.reasons.map((r) => r.code)],
      [73, ['industry_match', 'area_match', 'role_other', 'completeness']],
    );
    assert.deepEqual(
      [p['carl@beta.example']!.status, p['carl@beta.example']!.dropped_reason],
      ['DROPPED', 'already_a_lead'],
    );
    assert.deepEqual(
      [p['dee@gamma.example']!.status, p['dee@gamma.example']!.dropped_reason],
      ['DROPPED', 'suppressed'],
    );

    const good = await run(listProspects, { list: 'Scored', status: 'SCORED', min_score: 80 }, workspaceId);
    assert.deepEqual(
      good.data.map((x) => x.email),
      ['ana@acme.example'],
    );
    const [runRow] = await t.db.query(`SELECT status, scored, dropped FROM sourcing_runs WHERE id = $1`, [
      all.id,
    ]);
    assert.deepEqual({ ...runRow }, { status: 'COMPLETED', scored: 1, dropped: 1 });
  });

  it('approves through the intake (lead.created, source type prospecting; a lead already there is touched; a suppressed contact is 409), rejects with a reason', async () => {
    const workspaceId = await workspace();
    await run(importProspects, { file: file('approve.csv', CSV), list: 'Approve' }, workspaceId);
    await t.db.query(
      `INSERT INTO leads (workspace_id, first_name, email, source) VALUES ($1, 'Carl', 'carl@beta.example', 'ads')`,
      [workspaceId],
    );
    await run(suppressContact, { address: 'dee@gamma.example' }, workspaceId);
    const p = await byEmail(workspaceId);

    const approved = await run(approveProspect, { prospectId: p['ana@acme.example']!.id });
    assert.equal(approved.outcome, 'CREATED');
    assert.equal(approved.prospect.status, 'APPROVED');
    const events = await eventsFor(t.db, approved.lead_id!);
    const created = events.find((e) => e.type === 'lead.created')!;
    assert.equal(created.data.source_type, 'prospecting');
    assert.equal(created.data.source, 'Approve');
    assert.equal(created.data.email, 'ana@acme.example');
    assert.ok(
      events.some((e) => e.type === 'lead.scored'),
      'qualified like any lead',
    );
    const [lead] = await t.db.query(`SELECT source, consent_at, answers FROM leads WHERE id = $1`, [
      approved.lead_id,
    ]);
    assert.equal(lead.source, 'Approve');
    assert.equal(lead.consent_at, null, 'a sourced prospect did not ask to be contacted');
    assert.equal(lead.answers.company, 'Acme');
    const twice = await run(approveProspect, { prospectId: p['ana@acme.example']!.id });
    assert.equal(twice.lead_id, approved.lead_id, 'approving again changes nothing');

    const carl = await run(approveProspect, { prospectId: p['carl@beta.example']!.id });
    assert.equal(carl.outcome, 'MERGED');
    assert.ok((await eventsFor(t.db, carl.lead_id!)).some((e) => e.type === 'lead.touched'));
    const [{ n: leads }] = await t.db.query(
      `SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1 AND email = 'carl@beta.example'`,
      [workspaceId],
    );
    assert.equal(leads, 1, 'deduplicated');

    const dee = await refusal(run(approveProspect, { prospectId: p['dee@gamma.example']!.id }));
    assert.equal(dee.code, 'suppressed');
    const [{ n: stored }] = await t.db.query(
      `SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1 AND email = 'dee@gamma.example'`,
      [workspaceId],
    );
    assert.equal(stored, 0);

    const noReason = await refusal(run(rejectProspect, { prospectId: p['eve@delta.example']!.id }));
    assert.equal(noReason.details.field, 'reason');
    const rejected = await run(rejectProspect, {
      prospectId: p['eve@delta.example']!.id,
      reason: 'A competitor',
    });
    assert.equal(rejected.status, 'REJECTED');
    assert.equal(rejected.decision_reason, 'A competitor');
    const late = await refusal(run(approveProspect, { prospectId: p['eve@delta.example']!.id }));
    assert.equal(late.code, 'conflict');
  });

  it('a prospecting agent runs sourcing on its lists as the agent, recorded as its proposal', async () => {
    const workspaceId = await workspace();
    await run(importProspects, { file: file('agent.csv', CSV), list: 'Agent list' }, workspaceId);
    const agent = await run(
      createAgent,
      {
        name: 'Finder',
        type: 'prospecting',
        sources: { prospect_lists: ['Agent list', 'Gone'] },
        limits: { per_run: 3 },
      },
      workspaceId,
    );
    const result = (await env.client.workflow.execute(agentRunWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: `agent:${agent.id}-now-test`,
      args: [{ agentId: agent.id, trigger: 'run_now' }],
    })) as { runId: string };
    const actions = await t.db.query<{ kind: string; subject_id: string | null; outcome: string }[]>(
      `SELECT kind, subject_id, outcome FROM agent_actions WHERE run_id = $1 ORDER BY outcome`,
      [result.runId],
    );
    assert.deepEqual(
      actions.map((a) => a.kind),
      ['proposed', 'skipped'],
    );
    assert.match(actions[1]!.outcome, /^list "Gone": No prospect list "Gone"/);
    const [sourcing] = await t.db.query(
      `SELECT id, agent_id, max_candidates FROM sourcing_runs WHERE id = $1`,
      [actions[0]!.subject_id],
    );
    assert.deepEqual([sourcing.agent_id, sourcing.max_candidates], [agent.id, 3]);
    assert.deepEqual(await source(sourcing.id), { scored: 3, dropped: 0 });
  });
});
