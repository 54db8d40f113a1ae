import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { approvalGate } from '../../infra/temporal/approvals';
import { addConnection } from '../../domain/connections/operations/add';
import { createLogger } from '../../infra/logger';
import { repoRoot } from '../../tooling/paths';
import { ensurePythonTool, type PythonTool } from '../../tooling/python-tools';
import { SERVICE_DEFAULTS } from '../../tooling/services';
import { testApp } from '../helpers/api';
import { workspaceWithKey } from '../helpers/fixtures';
import { intakeBody, postLead } from '../helpers/leads';
import { MCP_VERSIONS, serve, type McpVersion } from '../helpers/mcp';
import { startWebhookStack, type WebhookStack } from '../helpers/webhook-stack';

/**
 * The official MCP Python SDK, pinned. jsonschema (a dependency of mcp) checks the `date-time`
 * format only when rfc3339-validator is importable; the script refuses to run without it.
 */
const PYTHON_SDK: PythonTool = {
  name: 'mcp-python-sdk',
  packages: ['mcp==2.3.0', 'rfc3339-validator==0.1.4'],
};
const SCRIPT = path.join(repoRoot(), 'test', 'python', 'mcp_client_check.py');

/** Every tool an admin key holding all four scopes is offered, sorted by name as the list is. */
const ALL_TOOLS = [
  'appointment.book',
  'appointment.cancel',
  'appointment.confirm',
  'appointment.decline',
  'appointment.get',
  'appointment.list',
  'appointment.mark_no_show',
  'approval.cancel',
  'approval.get',
  'approval.list',
  'connection.disconnect',
  'connection.list',
  'conversation.get',
  'conversation.list',
  'conversation.reply',
  'lead.add_note',
  'lead.archive',
  'lead.create',
  'lead.get',
  'lead.search',
  'lead.set_status',
  'lead.update',
  'workspace.get',
];

/** The calls the script makes in order (at 2026-07-28 the tasks session's approval.get follows). */
const CALLS = [
  ['workspace.get', false],
  ['lead.search', false],
  ['lead.get', false],
  ['conversation.list', false],
  ['connection.list', false],
  ['lead.add_note', false],
  ['lead.create', false],
  ['lead.get', true],
  ['connection.disconnect', false],
  ['approval.get', false],
];

type WireRequest = {
  method: string;
  tool: string | null;
  protocol_version: string | null;
  mcp_method: string | null;
  mcp_name: string | null;
  lead_id: string | null;
  meta: boolean;
  status: number;
};
type Task = {
  resultType: string;
  taskId: string;
  status: string;
  statusMessage: string;
  ttlMs: number;
  pollIntervalMs: number;
};
type Report = {
  requested: string;
  negotiated: string;
  era: 'handshake' | 'modern';
  server: { name: string; version: string };
  capabilities: { tools?: object; extensions?: Record<string, object> };
  supported_versions?: string[];
  tools: string[];
  calls: { tool: string; is_error: boolean; validated?: boolean; text?: string }[];
  workspace_id: string;
  search_ids: string[];
  lead_email: string;
  channels: string[];
  connections: [string, string][];
  note: string;
  created_outcome: string;
  gated: { status: string; approval_id: string; summary: string; expires_at: string; approval_url: string };
  approval_status: string;
  tasks_get_without_extension?: { code: number; message: string };
  tasks?: {
    created: Task;
    get: Task;
    cancel: { resultType: string; _meta?: object };
    after_cancel: Task;
    approval_status: string;
  };
  wire: WireRequest[];
};

/** Runs the script at one revision; asynchronous, since the API it talks to runs in this process. */
function runScript(python: string, args: string[], key: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(python, [SCRIPT, ...args], {
      env: { ...process.env, LEAD_SERVICE_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the official MCP Python SDK as a second client, at every protocol revision', () => {
  let python: string;
  let s: WebhookStack;
  let api: Awaited<ReturnType<typeof serve>>;
  let fixture: { key: string; workspace: { id: string; name: string }; leadId: string; email: string };
  let connectionId: string;
  before(async () => {
    // Blocks while pip installs (once), before anything else is started.
    python = ensurePythonTool(PYTHON_SDK, createLogger('python-sdk', 'info'));
    s = await startWebhookStack();
    api = await serve(
      testApp(s.db, {
        ports: {
          approvals: approvalGate(
            s.db,
            () => Promise.resolve(s.client),
            s.config.temporalTaskQueue,
            s.config,
          ),
        },
      }),
    );
    const w = await workspaceWithKey(s.db, {
      role: 'admin',
      scopes: ['leads:read', 'leads:write', 'business:read', 'business:write'],
    });
    const lead = (await postLead(testApp(s.db), w.key.key, intakeBody({ message: 'Call me?' }))).body
      .data as { id: string; email: string };
    fixture = { key: w.key.key, workspace: w.workspace, leadId: lead.id, email: lead.email };
    connectionId = (
      await s.run(addConnection, { system: 'google_calendar' }, { workspaceId: w.workspace.id })
    ).id;
  });
  after(async () => {
    await api?.close();
    await s?.stop();
  });

  const check = async (version: McpVersion): Promise<Report> => {
    const { code, stdout, stderr } = await runScript(
      python,
      [
        '--url',
        `${api.url}/api/mcp`,
        '--protocol-version',
        version,
        '--lead-id',
        fixture.leadId,
        '--lead-email',
        fixture.email,
        '--connection-id',
        connectionId,
      ],
      fixture.key,
    );
    assert.equal(code, 0, `the Python client failed at ${version}:\n${stderr.slice(-4000)}`);
    return JSON.parse(stdout) as Report;
  };

  /** What every revision shares: the tools, the reads, the writes, a refusal and the parked call. */
  const assertCommon = (r: Report, version: McpVersion) => {
    assert.equal(r.negotiated, version);
    assert.equal(r.server.name, 'lead-service');
    assert.ok(r.capabilities.tools, 'the server declares tools');
    assert.deepEqual(r.tools, ALL_TOOLS);
    assert.deepEqual(
      r.calls.slice(0, CALLS.length).map((c) => [c.tool, c.is_error]),
      CALLS,
    );
    assert.ok(
      r.calls.every((c) => c.is_error || c.validated),
      'every result was held to its outputSchema',
    );
    assert.match(r.calls[7]!.text!, /^not_found: /);
    assert.equal(r.workspace_id, fixture.workspace.id);
    assert.deepEqual(r.search_ids, [fixture.leadId]);
    assert.equal(r.lead_email, fixture.email);
    assert.deepEqual(r.channels, ['form']);
    assert.deepEqual(r.connections, [[connectionId, 'CONNECTED']]);
    assert.equal(r.note, `Called from the MCP Python SDK at ${version}.`);
    assert.equal(r.created_outcome, 'CREATED');
    assert.equal(r.gated.status, 'pending_approval');
    assert.equal(r.gated.summary, `Disconnect Google Calendar from ${fixture.workspace.name}`);
    assert.match(r.gated.approval_id, /^[0-9a-f-]{36}$/);
    assert.equal(
      r.gated.approval_url,
      `${SERVICE_DEFAULTS.publicUrl}/app/w/${fixture.workspace.id}/approvals/${r.gated.approval_id}`,
    );
    assert.equal(r.approval_status, 'PENDING');
    const refused = r.wire.filter(
      (w) => !w.method.startsWith('tasks/') && !(w.status >= 200 && w.status < 300),
    );
    assert.deepEqual(refused, [], 'every request but the tasks probes is answered 2xx');
  };

  for (const version of MCP_VERSIONS.filter((v) => v !== '2026-07-28')) {
    it(`works at ${version} through its initialize handshake, with the gated call parked`, async () => {
      const r = await check(version);
      assertCommon(r, version);
      assert.equal(r.era, 'handshake');
      assert.equal(r.capabilities.extensions, undefined, 'no tasks extension before 2026-07-28');
      assert.equal(r.tasks, undefined);
      const [init, ...rest] = r.wire;
      assert.deepEqual([init!.method, init!.protocol_version], ['initialize', null]);
      assert.deepEqual(
        rest.map((w) => [w.method, w.protocol_version, w.mcp_method, w.meta]),
        rest.map((w) => [w.method, version, null, false]),
        'later requests name the version in MCP-Protocol-Version, without 2026 headers or _meta',
      );
    });
  }

  it('works at 2026-07-28 without a handshake, and with the tasks extension a gated call is a task', async () => {
    const r = await check('2026-07-28');
    assertCommon(r, '2026-07-28');
    assert.equal(r.era, 'modern');
    assert.ok(r.supported_versions?.includes('2026-07-28'));
    assert.deepEqual(Object.keys(r.capabilities.extensions ?? {}), ['io.modelcontextprotocol/tasks']);
    assert.equal(r.wire[0]!.method, 'server/discover');
    assert.ok(!r.wire.some((w) => w.method === 'initialize'));
    for (const w of r.wire) {
      assert.equal(w.protocol_version, '2026-07-28', `${w.method}: MCP-Protocol-Version`);
      assert.equal(w.mcp_method, w.method, `${w.method}: Mcp-Method`);
      assert.ok(w.meta, `${w.method}: per-request _meta`);
      if (w.method === 'tools/call') assert.equal(w.mcp_name, w.tool, `${w.tool}: Mcp-Name`);
    }
    const leadCalls = r.wire.filter((w) => w.tool === 'lead.get' || w.tool === 'lead.add_note');
    assert.equal(leadCalls.length, 3);
    assert.ok(
      leadCalls.every((w) => w.lead_id !== null),
      'lead ids are mirrored in Mcp-Param-Lead-Id',
    );
    assert.equal(leadCalls[0]!.lead_id, fixture.leadId);

    // Without the extension declared, tasks/* is refused; with it, the parked request is the task.
    assert.equal(r.tasks_get_without_extension?.code, -32021);
    const t = r.tasks!;
    assert.equal(t.created.resultType, 'task');
    assert.equal(t.created.taskId, r.gated.approval_id, 'the same request, asked again while it waits');
    assert.equal(t.created.status, 'working');
    assert.match(
      t.created.statusMessage,
      new RegExp(
        `^Waiting for a person to approve: Disconnect Google Calendar from ${fixture.workspace.name}`,
      ),
    );
    assert.equal(t.created.pollIntervalMs, 30_000);
    assert.equal(t.created.ttlMs, 14 * 86_400_000);
    assert.deepEqual(
      [t.get.resultType, t.get.taskId, t.get.status],
      ['complete', t.created.taskId, 'working'],
    );
    assert.deepEqual(
      Object.entries(t.cancel).filter(([k]) => k !== '_meta'),
      [['resultType', 'complete']],
      'tasks/cancel answers an empty result',
    );
    assert.deepEqual(
      [t.after_cancel.taskId, t.after_cancel.status, t.after_cancel.statusMessage],
      [t.created.taskId, 'cancelled', 'Withdrawn before anyone decided. Nothing happened.'],
    );
    assert.equal(t.approval_status, 'CANCELLED');
    assert.deepEqual(r.calls.slice(CALLS.length), [
      { tool: 'approval.get', is_error: false, validated: true },
    ]);
    const taskRequests = r.wire.filter((w) => w.method === 'tasks/get' || w.method === 'tasks/cancel');
    assert.deepEqual(
      taskRequests.map((w) => [w.method, w.mcp_name, w.status]),
      [
        ['tasks/get', t.created.taskId, 400],
        ['tasks/get', t.created.taskId, 200],
        ['tasks/cancel', t.created.taskId, 200],
        ['tasks/get', t.created.taskId, 200],
      ],
      'Mcp-Name carries the taskId',
    );
  });
});
