import type { DataSource } from 'typeorm';
import type { Ports, Services } from '../domain/kernel/operation';
import { composeServices } from '../domain/registry';
import { loadConfig } from '../infra/config';
import { jobNames } from '../infra/temporal/workflow-ids';

/** The services' settings as configured by default (the URLs are never dialled here). */
export const SERVICE_DEFAULTS = loadConfig({
  NODE_ENV: 'test',
  DATABASE_URL: 'postgres://unused',
  TEMPORAL_ADDRESS: 'unused:7233',
});

const nothingWaits = async () => undefined;

/**
 * The composition root of the tests (and the benches, the chaos suite and the seed scripts): services
 * whole, as every door's root builds them, with the parts a process without Temporal does not reach
 * standing in plainly. No gated call parks (a test that parks passes the gate on Temporal), no
 * workflow is woken, started or cancelled, nobody can ask for an agent's schedule; the jobs are named
 * as in production and the keys are the default configuration's. A test passes what it exercises in
 * `ports`.
 */
export function testServices(db: DataSource, ports: Partial<Ports> = {}): Services {
  return composeServices({
    db,
    approvals: {
      park: () => Promise.reject(new Error('a gated call parks only where the test passes a gate')),
      decide: () =>
        Promise.reject(new Error('a decision reaches a request only where the test passes a gate')),
      withdrawn: nothingWaits,
    },
    campaigns: { wake: nothingWaits },
    appointments: {
      start: nothingWaits,
      decide: () => Promise.reject(new Error('a booking decision needs the test to pass its desk')),
    },
    agents: { schedule: nothingWaits },
    cancelTimers: { invoiceDue: nothingWaits },
    jobNames,
    secretsKey: SERVICE_DEFAULTS.secretsKey,
    publicUrl: SERVICE_DEFAULTS.publicUrl,
    webhooks: {
      secretsKey: SERVICE_DEFAULTS.secretsKey,
      allowPrivateTargets: false,
      cancelWorkflows: nothingWaits,
    },
    mailFeedbackDomains: [],
    ...ports,
  });
}

/** For callers with nothing to cancel (tests and benchmarks that check the database only). */
export const noCanceller: Ports['webhooks']['cancelWorkflows'] = async () => undefined;
