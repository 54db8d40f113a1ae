import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Router from '@koa/router';
import { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { parse } from 'yaml';
import { createAuditWriter } from '../../api/audit-writer';
import { httpMetrics } from '../../api/http-metrics';
import { repoRoot } from '../../tooling/paths';
import { workerMetrics } from '../../worker/worker-metrics';

type Rule = {
  alert?: string;
  expr?: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
};

const read = (file: string) => readFileSync(path.join(repoRoot(), file), 'utf8');

/** Every series the API and the worker declare (the pool is never read: nothing is scraped here). */
function declaredSeries(): Map<string, string> {
  const [api, worker] = [new Registry(), new Registry()];
  const db = {} as DataSource;
  httpMetrics(api, { db, audits: createAuditWriter(db), auditLimit: 1, rest: new Router() });
  workerMetrics(worker, db);
  return new Map([api, worker].flatMap((r) => r.getMetricsAsArray()).map((m) => [m.name, String(m.type)]));
}

describe('Prometheus in the compose stack', () => {
  const series = declaredSeries();
  const config = parse(read('deploy/prometheus/prometheus.yml')) as {
    rule_files: string[];
    scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
  };
  const rules = (
    parse(read('deploy/prometheus/alerts.yml')) as { groups: { rules: Rule[] }[] }
  ).groups.flatMap((g) => g.rules);

  it('scrapes the API and the worker on their metrics ports, and loads the alert rules', () => {
    const targets = Object.fromEntries(
      config.scrape_configs.map((c) => [c.job_name, c.static_configs.flatMap((s) => s.targets)]),
    );
    assert.deepEqual(targets, { api: ['api:9464'], worker: ['worker:9465'] });
    assert.deepEqual(config.rule_files, ['/etc/prometheus/alerts.yml']);
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { image?: string; volumes?: string[]; environment?: Record<string, string> }>;
    };
    const prometheus = compose.services.prometheus!;
    assert.match(prometheus.image!, /^prom\/prometheus:/);
    assert.ok(prometheus.volumes!.includes('./deploy/prometheus:/etc/prometheus:ro'));
    assert.equal(compose.services.api!.environment!.METRICS_PORT, '9464');
    assert.equal(compose.services.worker!.environment!.WORKER_METRICS_PORT, '9465');
  });

  it('alerts on delivery failures, relay lag and the audit backlog, each with a severity and a summary', () => {
    const names = rules.map((r) => r.alert);
    for (const wanted of ['WebhookDeliveryFailureRateHigh', 'OutboxRelayLagHigh', 'AuditBacklogHigh'])
      assert.ok(names.includes(wanted), `${wanted} is a rule`);
    for (const r of rules) {
      assert.ok(r.alert && r.expr, JSON.stringify(r));
      assert.match(r.labels?.severity ?? '', /^(critical|warning|info)$/, `${r.alert} has a severity`);
      assert.ok(r.annotations?.summary, `${r.alert} has a summary`);
      if (r.for) assert.match(r.for, /^\d+[smh]$/, `${r.alert}: for`);
      // Balanced brackets: a cheap guard against an expression cut short.
      for (const [open, close] of ['()', '{}', '[]'])
        assert.equal(r.expr.split(open!).length, r.expr.split(close!).length, `${r.alert}: ${open}${close}`);
    }
  });

  it('names in its rules only series the service exposes', () => {
    for (const r of rules)
      for (const [name] of r.expr!.matchAll(/\bleads_\w+/g)) {
        const base = name.replace(/_(bucket|count|sum)$/, '');
        const type = series.get(name) ?? series.get(base);
        assert.ok(type, `${r.alert} names ${name}, which no one exposes`);
        if (name !== base) assert.equal(type, 'histogram', `${name} is a histogram's`);
      }
  });

  it('documents every series in docs/observability.md', () => {
    const doc = read('docs/observability.md');
    for (const name of series.keys())
      if (name.startsWith('leads_'))
        assert.match(
          doc,
          new RegExp(`\`${name}[\`{]`),
          `${name} is in docs/observability.md's Metrics tables`,
        );
  });
});
