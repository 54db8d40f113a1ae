import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { DataSource } from 'typeorm';
import type * as yup from 'yup';
import { commands } from '../../admin/commands';
import { TOOL_OPERATIONS } from '../../api/mcp/tools';
import { openApiDocument } from '../../api/openapi/document';
import { restRoutes } from '../../api/rest/routes';
import { buildApp } from '../../api/server';
import { missingDescriptions, toJsonSchema } from '../../domain/kernel/json-schema';
import { ROLES, SCOPES } from '../../domain/kernel/permissions';
import { allOperations, operationNamed } from '../../domain/registry';
import { createLogger } from '../../infra/logger';
import { repoRoot } from '../../tooling/paths';
import { SERVICE_DEFAULTS } from '../helpers/api';
import { testServices } from '../../tooling/services';

// Building the app mounts every route; nothing is queried until a request arrives.
buildApp({
  services: testServices({} as DataSource),
  config: SERVICE_DEFAULTS,
  log: createLogger('test', 'error'),
});

const ajv = new Ajv2020({ strict: false });
addFormats(ajv);

/** Every production source file (what ships, not tests, tooling, benches or the chaos suite). */
function productionFiles(): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    // Migrations are history: they keep the names as they were when written.
    if (p.endsWith(`${path.sep}migrations`)) return;
    if (statSync(p).isDirectory()) for (const e of readdirSync(p)) walk(path.join(p, e));
    // The layer rules' test writes fixtures into these folders for a moment (layers.test.ts), and the
    // two files may run at once: such a file is the test's, not production code, and may vanish.
    else if (p.endsWith('.ts') && !p.endsWith('zz-layer-fixture.ts')) out.push(p);
  };
  for (const dir of ['api', 'admin', 'domain', 'activities', 'workflows', 'worker', 'infra'])
    walk(path.join(repoRoot(), dir));
  return out;
}

describe('the operation registry', () => {
  const ops = allOperations();

  it('has every gated operation declare its effect, so what a person approves can be snapshotted and checked', () => {
    const gated = ops.filter((op) => op.gated);
    assert.deepEqual(
      gated.filter((op) => !op.effect).map((op) => op.name),
      [],
    );
    assert.deepEqual(
      gated.map((op) => op.name),
      [
        'agent.configure',
        'agent.run_now',
        'agent.start',
        'campaign.launch',
        'campaign.resume',
        'campaign.send',
        'connection.disconnect',
      ],
    );
    assert.deepEqual(
      ops.filter((op) => op.gatedWhen).map((op) => op.name),
      ['agent.configure'],
      'only configure decides per call (when it widens a running agent)',
    );
  });

  it('holds every operation once, by an area.verb name of at most 64 characters', () => {
    assert.ok(ops.length >= 30, `${ops.length} operations`);
    assert.equal(new Set(ops.map((o) => o.name)).size, ops.length);
    for (const op of ops) {
      assert.match(op.name, /^[a-z]+\.[a-z_]+$/, op.name);
      assert.ok(op.name.length <= 64, op.name);
      assert.equal(operationNamed(op.name), op);
    }
  });

  for (const op of allOperations()) {
    it(`${op.name}: one declaration — requirement, described input, output schema, doors, honest flags`, () => {
      assert.ok(
        op.requirement.scope === 'any' || (SCOPES as readonly string[]).includes(op.requirement.scope),
        'a known scope, or any valid key',
      );
      assert.ok((ROLES as readonly string[]).includes(op.requirement.minRole), 'a known minimum role');
      assert.ok(op.title.trim() && op.description.trim() && op.returns.trim(), 'title, description, returns');
      assert.deepEqual(
        missingDescriptions(op.input as yup.AnySchema),
        [],
        'every input field has a description',
      );
      assert.equal(
        toJsonSchema(op.input as yup.AnySchema).type,
        'object',
        'the input is an object (a tool input schema)',
      );
      assert.ok(ajv.compile(op.output), 'the output schema compiles (JSON Schema 2020-12)');
      const doors = [op.doors.rest, op.doors.mcp, op.doors.admin, op.doors.public, op.doors.console];
      assert.ok(doors.some(Boolean), 'offered by at least one door');
      if (op.operatorOnly) assert.ok(!op.doors.rest && !op.doors.mcp, 'operator-only: the admin door alone');
      if (op.gated) assert.ok(op.doors.mcp, 'a gated operation is offered to the assistant, which parks it');
      assert.ok(['workspace', 'record', 'none'].includes(op.reach));
      if (op.reach === 'none')
        assert.equal(op.operatorOnly, true, 'only the operator acts outside a workspace');
      if (!op.changes) {
        assert.equal(op.destructive, false, 'a read destroys nothing');
        assert.equal(op.idempotent, true, 'a read is idempotent');
      }
      assert.equal(typeof op.summary, 'function');
    });
  }

  it("writes each operation's name in one production file only: the doors derive everything else", () => {
    const files = productionFiles().map((f) => [f, readFileSync(f, 'utf8')] as const);
    for (const op of ops) {
      const holders = files
        .filter(([, text]) => text.includes(`'${op.name}'`))
        .map(([f]) => path.relative(repoRoot(), f));
      assert.ok(holders.length <= 1, `${op.name} is written in ${holders.join(', ')}`);
    }
  });

  it('derives the tools from the operations that declare the assistant door', () => {
    assert.deepEqual(
      TOOL_OPERATIONS.map((o) => o.name),
      ops.filter((o) => o.doors.mcp).map((o) => o.name),
    );
  });

  it('maps every REST route onto registered operations, and documents exactly the routes there are', () => {
    const routes = restRoutes();
    assert.ok(routes.length >= 6);
    for (const r of routes) {
      assert.ok(r.operations.length > 0, `${r.method} ${r.path}`);
      for (const op of r.operations)
        assert.equal(operationNamed(op.name), op, `${r.method} ${r.path} → ${op.name}`);
      assert.equal(r.requirement, r.operations[0]!.requirement, 'guarded by what its operations need');
    }
    const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([p, methods]) =>
      Object.keys(methods).map((m) => `${m} ${p.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    assert.deepEqual(documented.sort(), routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('maps every admin command onto the registered operation that declares it', () => {
    assert.ok(commands.size >= 25);
    for (const [name, cmd] of commands) {
      assert.match(name, /^[a-z]+ [a-z-]+$/);
      assert.equal(operationNamed(cmd.operation.name), cmd.operation, name);
      assert.equal(cmd.operation.doors.admin, cmd.binding);
    }
  });
});
