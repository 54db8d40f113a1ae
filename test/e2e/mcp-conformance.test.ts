import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { MCP_VERSIONS as CLAIMED } from '../../api/mcp/route';
import { createLogger } from '../../infra/logger';
import {
  ensureConformance,
  listServerScenarios,
  runConformanceScenario,
  type ConformanceTools,
  type ServerScenario,
} from '../../tooling/mcp-conformance';
import { repoRoot } from '../../tooling/paths';
import { testApp } from '../helpers/api';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { workspaceWithKey } from '../helpers/fixtures';
import { serve, type McpVersion } from '../helpers/mcp';

/**
 * For each protocol version the endpoint serves, the suite's server scenarios that apply to an
 * authenticated, stateless, tools-only server. Checks that cannot pass here are listed, one by one
 * and with the reason, in conformance/expected-failures-<version>.yml; every other check must pass.
 * Extension scenarios (tasks-*) have no version of their own: the suite runs them at 2026-07-28.
 */
const RUNS: Record<McpVersion, readonly string[]> = {
  // The suite's 2025 client always asks for 2025-11-25 in `initialize`; at 2025-06-18 only the raw
  // probe of server-initialize and the schema the answers are held to are 2025-06-18's.
  '2025-06-18': ['server-initialize', 'ping', 'tools-list'],
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
  '2026-07-28': [
    'tools-list',
    'dns-rebinding-protection',
    'server-stateless',
    'server-sse-multiple-streams',
    'caching',
    'http-header-validation',
    'http-custom-header-server-validation',
    'input-required-result-unsupported-methods',
    'input-required-result-validate-input',
    'tasks-capability-negotiation',
    'tasks-request-headers',
    'tasks-dispatch-and-envelope',
    // Its one check is skipped upstream until its harness is rewritten; run so that an upgrade giving
    // it real checks is noticed.
    'tasks-status-notifications',
  ],
};

/**
 * Why every other scenario the suite ships does not apply here (docs/mcp-conformance.md says more).
 * Keys: a scenario, `prefix*`, or `scenario@version`.
 */
const NOT_APPLICABLE: Record<string, string> = {
  'server-session-lifecycle': 'stateless: no MCP-Session-Id is ever issued (the scenario only reports INFO)',
  'server-sse-polling': 'needs a session and resumable SSE; answers here are JSON, stateless',
  'server-sse-multiple-streams@2025-11-25': 'on the 2025 wire it needs a session id; run at 2026-07-28',
  'logging-set-level': 'no logging capability',
  'completion-complete': 'no completions capability',
  'tools-call-*': 'calls the suite’s fixture tools (test_simple_text, test_error_handling, ...)',
  'json-schema-2020-12': 'calls the fixture tool json_schema_2020_12_tool',
  'elicitation-*': 'calls fixture tools that elicit; nothing here asks the client for input',
  'resources-*': 'no resources capability',
  'prompts-*': 'no prompts capability',
  'sep-2164-resource-not-found': 'no resources capability',
  'sep-2640-skills-*': 'the skills extension is not offered',
  'tasks-*': 'calls fixture tools whose tasks must end within 10 s; a task here is a human approval',
  'input-required-result-*': 'calls test_input_required_result_* fixtures; no tool here asks for input',
};

const notApplicable = (scenario: string, version: string) =>
  [`${scenario}@${version}`, scenario].find((k) => NOT_APPLICABLE[k]) ??
  Object.keys(NOT_APPLICABLE).find((k) => k.endsWith('*') && scenario.startsWith(k.slice(0, -1)));

const baselineFile = (version: McpVersion) =>
  path.join(repoRoot(), 'test', 'e2e', 'conformance', `expected-failures-${version}.yml`);

/** The check ids the baseline expects to fail in one scenario at one version. */
function expectedFailures(version: McpVersion, scenario: string): Set<string> {
  const entries = (parse(readFileSync(baselineFile(version), 'utf8')) as { server: string[] }).server;
  for (const entry of entries)
    assert.match(entry, /^[^:]+:.+$/, `${entry}: a baseline names one check, never a whole scenario`);
  return new Set(
    entries.filter((e) => e.startsWith(`${scenario}:`)).map((e) => e.slice(scenario.length + 1)),
  );
}

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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the official MCP conformance suite, against the assistant endpoint', () => {
  let t: TestDatabase;
  let api: Awaited<ReturnType<typeof serve>>;
  let proxy: Awaited<ReturnType<typeof keyAddingProxy>>;
  let tools: ConformanceTools;
  let shipped: ServerScenario[];
  before(async () => {
    tools = ensureConformance(createLogger('conformance', 'warn'));
    shipped = await listServerScenarios(tools);
    t = await freshDatabase();
    // The suite's probes come faster than any client's; the rate limit has tests of its own.
    api = await serve(testApp(t.db, { rateLimitPerMinute: 10_000 }));
    // Read scopes only: the suite calls the first listed tool (approval.cancel) and the first with an
    // x-mcp-header argument (conversation.get) with made-up arguments, which they refuse as tool errors.
    const { key } = await workspaceWithKey(t.db, { role: 'admin', scopes: ['leads:read', 'business:read'] });
    proxy = await keyAddingProxy(api.url, key.key);
  });
  after(async () => {
    await proxy?.close();
    await api?.close();
    await t?.drop();
  });

  it('runs at every version the endpoint claims, and accounts for every scenario the suite ships', () => {
    assert.deepEqual(Object.keys(RUNS).sort(), [...CLAIMED.modern, ...CLAIMED.legacy].sort());
    const unaccounted: string[] = [];
    for (const [version, scenarios] of Object.entries(RUNS) as [McpVersion, readonly string[]][]) {
      const applicable = shipped.filter(
        (s) => s.versions.includes(version) || (s.extension && version === '2026-07-28'),
      );
      for (const s of applicable)
        if (!scenarios.includes(s.name) && !notApplicable(s.name, version))
          unaccounted.push(`${s.name}@${version}`);
      for (const name of scenarios)
        assert.ok(
          applicable.some((s) => s.name === name),
          `${name} does not apply at ${version} in this suite`,
        );
    }
    assert.deepEqual(unaccounted, [], 'scenarios neither run nor explained in NOT_APPLICABLE');
  });

  for (const [version, scenarios] of Object.entries(RUNS) as [McpVersion, readonly string[]][])
    for (const scenario of scenarios)
      it(`${version}: ${scenario}`, { timeout: 30_000 }, async (ctx) => {
        const extension = shipped.find((s) => s.name === scenario)?.extension ?? false;
        const expected = expectedFailures(version, scenario);
        const run = await runConformanceScenario(tools, proxy.url, {
          scenario,
          // An extension scenario given a version is skipped as not applicable.
          specVersion: extension ? undefined : version,
          expectedFailures: baselineFile(version),
          timeoutMs: 25_000,
          signal: ctx.signal,
        });
        const tail = run.output.slice(-3000);
        assert.ok(run.checks?.length, `the scenario did not run:\n${tail}`);
        const failed = run.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
        const unexpected = failed
          .filter((c) => !expected.has(c.id))
          .map((c) => `not in the baseline: ${c.id}: ${c.status} ${c.errorMessage ?? c.description ?? ''}`);
        // A listed check that passes, or that the suite no longer emits (renamed; its CLI ignores those).
        const stale = [...expected]
          .filter((id) => !failed.some((c) => c.id === id))
          .map((id) => `in the baseline but not failing: ${id} (remove it)`);
        assert.deepEqual([...unexpected, ...stale], [], `${scenario} at ${version}`);
        assert.equal(run.exitCode, 0, tail);
      });
});
