import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { commands } from '../../admin/commands';
import { openApiDocument } from '../../api/openapi/document';
import { restRoutes } from '../../api/routes/v1/route';
import { buildApp } from '../../api/server';
import { missingDescriptions, toJsonSchema } from '../../domain/kernel/json-schema';
import { ROLES, SCOPES } from '../../domain/kernel/permissions';
import { allOperations, operationNamed } from '../../domain/registry';
import { createLogger } from '../../infra/logger';
import { SERVICE_DEFAULTS } from '../helpers/api';

// Building the app mounts every route; nothing is queried until a request arrives.
buildApp({
  db: {} as DataSource,
  config: SERVICE_DEFAULTS,
  log: createLogger('test', 'error'),
});

describe('the operation registry', () => {
  const ops = allOperations();

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
    it(`${op.name}: requirement, described input, audit action, honest flags`, () => {
      assert.ok((SCOPES as readonly string[]).includes(op.requirement.scope), 'a known scope');
      assert.ok((ROLES as readonly string[]).includes(op.requirement.minRole), 'a known minimum role');
      assert.ok(op.title.trim() && op.description.trim() && op.returns.trim(), 'title, description, returns');
      assert.deepEqual(missingDescriptions(op.input), [], 'every input field has a description');
      const schema = toJsonSchema(op.input);
      assert.equal(schema.type, 'object', 'the input is an object (a tool input schema)');
      // The audit action is the operation's name: the runner writes op.name (checked in operations.test.ts).
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

  it('maps every REST route onto registered operations, and every documented path has a route', () => {
    const routes = restRoutes();
    assert.ok(routes.length >= 6);
    for (const r of routes) {
      assert.ok(r.operations.length > 0, `${r.method} ${r.path}`);
      for (const name of r.operations) assert.ok(operationNamed(name), `${r.method} ${r.path} → ${name}`);
    }
    const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) {
        const express = path.replace(/\{(\w+)\}/g, ':$1');
        assert.ok(
          routes.some((r) => r.method === method && r.path === express),
          `${method} ${path} is documented and mapped`,
        );
      }
    }
  });

  it('maps every admin command onto a registered operation, or onto a decision whose approval runs one', () => {
    for (const [group, cmds] of Object.entries(commands)) {
      for (const [name, cmd] of Object.entries(cmds)) {
        if ('decide' in cmd)
          assert.deepEqual([group, name], ['approval', cmd.decide], 'only approval decisions');
        else assert.equal(operationNamed(cmd.operation.name), cmd.operation, `${group} ${name}`);
      }
    }
  });
});
