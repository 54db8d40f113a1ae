import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { buildApp } from '../../api/server';
import type { Ports } from '../../domain/kernel/operation';
import { composeServices } from '../../domain/registry';
import { createLogger } from '../../infra/logger';
import { productionPorts } from '../../infra/services';
import { repoRoot } from '../../tooling/paths';
import { SERVICE_DEFAULTS, testServices } from '../../tooling/services';

const db = {} as DataSource;
const never = () => Promise.reject(new Error('Temporal is not dialled in this test'));

/** Every part a process's services must have: the ports that are not optional by nature. */
const REQUIRED: (keyof Ports)[] = [
  'approvals',
  'campaigns',
  'secretsKey',
  'appointments',
  'agents',
  'cancelTimers',
  'mailFeedbackDomains',
  'webhooks',
];

/**
 * One composition root per process kind: the API, the worker and the admin CLI compose the production
 * ports (infra/services.ts) with the areas, the tests (and benches) the test root's; each builds the
 * services whole, and a door without a part does not compile.
 */
describe('the composition roots', () => {
  it('builds each process kind its services whole, from its root', () => {
    const production = composeServices(productionPorts(db, SERVICE_DEFAULTS, never));
    const tests = testServices(db);
    for (const [who, services] of [
      ['production', production],
      ['tests', tests],
    ] as const) {
      for (const part of REQUIRED) assert.ok(services[part] !== undefined, `${who} services lack ${part}`);
      assert.equal(typeof services.approvals.park, 'function');
      assert.equal(services.db, db);
    }
    assert.deepEqual(tests.secretsKey, SERVICE_DEFAULTS.secretsKey);
  });

  it('has each process start from its root, and only there', () => {
    const read = (file: string) => readFileSync(path.join(repoRoot(), file), 'utf8');
    for (const root of ['api/listen.ts', 'worker/run.ts', 'admin/cli.ts'])
      // The admin CLI's gate refuses the operator's break-glass at once where its configuration does not take it.
      assert.match(
        read(root),
        /composeServices\((withBreakGlass\()?productionPorts\(/,
        `${root} composes its services`,
      );
    // Nothing else composes production services: a door takes them whole from its root.
    for (const door of ['api/server.ts', 'activities/index.ts'])
      assert.doesNotMatch(read(door), /composeServices|productionPorts/, door);
  });

  it('refuses, at compile time, a door built without the approval gate', () => {
    // Type-checked by `npm run typecheck` (each line below must be an error there), never run.
    const unbuilt = () => {
      const withoutGate: Omit<ReturnType<typeof productionPorts>, 'approvals'> = productionPorts(
        db,
        SERVICE_DEFAULTS,
        never,
      );
      // @ts-expect-error the gate is a required part: services cannot be composed without it
      const services = composeServices(withoutGate);
      buildApp({
        // @ts-expect-error nor can a door be built on services made by hand, without the areas composed
        services: { ...withoutGate },
        config: SERVICE_DEFAULTS,
        log: createLogger('test', 'error'),
      });
      return services;
    };
    assert.equal(typeof unbuilt, 'function');
  });
});
