import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../infra/config';

const base = { DATABASE_URL: 'postgres://u:p@localhost:5432/db', TEMPORAL_ADDRESS: 'localhost:7233' };

describe('configuration', () => {
  it('names every bad or missing variable at once', () => {
    assert.throws(
      () => loadConfig({ PORT: 'abc', TRUST_PROXY: 'yes' }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const text = err.problems.join('\n');
        for (const name of ['PORT', 'TRUST_PROXY', 'DATABASE_URL', 'TEMPORAL_ADDRESS'])
          assert.match(text, new RegExp(name));
        return true;
      },
    );
  });
  it('has a secrets key default only in development and test', () => {
    assert.equal(loadConfig({ ...base, NODE_ENV: 'development' }).secretsKey.length, 32);
    assert.throws(
      () => loadConfig({ ...base, NODE_ENV: 'production' }),
      /SECRETS_KEY is required in production/,
    );
    assert.throws(() => loadConfig({ ...base, SECRETS_KEY: 'c2hvcnQ=' }), /SECRETS_KEY must be 32 bytes/);
    const key = Buffer.alloc(32, 7).toString('base64');
    assert.deepEqual(loadConfig({ ...base, SECRETS_KEY: key }).secretsKey, Buffer.alloc(32, 7));
  });
  it('refuses private webhook targets in production unless forced on purpose', () => {
    const prod = { ...base, NODE_ENV: 'production', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };
    assert.throws(
      () => loadConfig({ ...prod, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
      /WEBHOOK_ALLOW_PRIVATE_TARGETS=true is refused in production/,
    );
    const forced = loadConfig({
      ...prod,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS_IN_PRODUCTION: 'true',
    });
    assert.equal(forced.webhookAllowPrivateTargets, true);
    assert.equal(
      loadConfig({ ...base, NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
        .webhookAllowPrivateTargets,
      true,
    );
  });
  it('applies documented defaults', () => {
    const c = loadConfig({ ...base, NODE_ENV: 'test' });
    assert.equal(c.port, 3000);
    assert.equal(c.rateLimitPerMinute, 300);
    assert.equal(c.temporalNamespace, 'default');
    assert.equal(c.temporalTaskQueue, 'lead-service');
    assert.equal(c.trustProxy, false);
    assert.equal(c.webhookAllowPrivateTargets, false);
  });
  it('serves metrics on 9464 (API) and 9465 (worker), on free ports in tests, or where told', () => {
    const dev = loadConfig({ ...base, NODE_ENV: 'development' });
    assert.deepEqual([dev.metricsPort, dev.workerMetricsPort], [9464, 9465]);
    const test = loadConfig({ ...base, NODE_ENV: 'test' });
    assert.deepEqual([test.metricsPort, test.workerMetricsPort], [0, 0]);
    const told = loadConfig({ ...base, NODE_ENV: 'test', METRICS_PORT: '9100', WORKER_METRICS_PORT: '9101' });
    assert.deepEqual([told.metricsPort, told.workerMetricsPort], [9100, 9101]);
    assert.throws(
      () => loadConfig({ ...base, METRICS_PORT: '70000' }),
      /METRICS_PORT must be an integer between 0 and 65535/,
    );
  });
});
