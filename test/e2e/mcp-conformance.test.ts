import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../infra/logger';
import {
  ensureConformance,
  runConformanceScenario,
  type ConformanceTools,
} from '../../tooling/mcp-conformance';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';
import { serve } from '../helpers/mcp';

/** The scenarios that apply to an authenticated business server (the others need fixture tools). */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

/**
 * A loopback proxy that adds the bearer key, because the conformance CLI sends no headers of its
 * own. It forwards Host and Origin untouched, so the DNS-rebinding scenario still reaches the check.
 */
async function keyAddingProxy(target: string, key: string) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/api/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the official MCP conformance suite, against the assistant endpoint', () => {
  let t: TestDatabase;
  let api: Awaited<ReturnType<typeof serve>>;
  let proxy: Awaited<ReturnType<typeof keyAddingProxy>>;
  let tools: ConformanceTools;
  before(async () => {
    tools = ensureConformance(createLogger('conformance', 'warn'));
    t = await freshDatabase();
    api = await serve(testApp(t.db));
    const { key } = await workspaceWithKey(t.db, { scopes: ['leads:read', 'business:read'] });
    proxy = await keyAddingProxy(api.url, key.key);
  });
  after(async () => {
    await proxy?.close();
    await api?.close();
    await t?.drop();
  });

  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const { passed, output } = await runConformanceScenario(tools, proxy.url, scenario);
      assert.ok(passed, output.slice(-3000));
    });
  }
});
