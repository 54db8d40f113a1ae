import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Client } from '@temporalio/client';
import type { EntityManager } from 'typeorm';
import { Data } from '../../domain/kernel/data';
import { declareOutbox } from '../../domain/kernel/outbox';
import { allOutboxes } from '../../domain/registry';
import type { AgentScheduler } from '../../infra/temporal/agents';
import { outboxStarters } from '../../infra/temporal/outbox-starters';
import { repoRoot } from '../../tooling/paths';
import { sourcesOf } from '../../worker/relay';

const data = new Data({} as EntityManager, undefined);
const unused = {} as Client;
const scheduler: AgentScheduler = {
  sync: () => Promise.reject(new Error('unused')),
  describe: () => Promise.reject(new Error('unused')),
};

/** The domain's source files (migrations aside), each with its text. */
const domainSources = () =>
  readdirSync(path.join(repoRoot(), 'domain'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.startsWith('migrations'))
    .map((f) => path.join('domain', f))
    .map((file) => ({ file, text: readFileSync(path.join(repoRoot(), file), 'utf8') }));
const namesOf = (files: { file: string }[]) => files.map((f) => f.file);

/** An outbox in memory, whose rows are strings. */
const outbox = (name: string, started?: (row: string) => Promise<void>) =>
  declareOutbox<string>({
    name,
    unstarted: async () => [],
    key: (row) => row,
    ...(started && { started: (_data: Data, row: string) => started(row) }),
  });

/**
 * The outboxes are the areas' (each face's `outboxes`, collected by the registry) and their starters
 * infra/temporal/'s; the relay pairs them by name, the name a commit's NOTIFY says and the metrics'
 * label, so the names stay as they were.
 */
describe('the outboxes: declared by their areas, started by infra/temporal/', () => {
  it('registers every outbox once, under the names the NOTIFYs and metrics use', () => {
    assert.deepEqual(
      allOutboxes()
        .map((o) => o.name)
        .sort(),
      [
        'agent schedule',
        'campaign',
        'invoice due date',
        'member mail',
        'message',
        'quote expiry',
        'sourcing run',
        'webhook delivery',
      ],
    );
  });

  it('gives every registered outbox its starter, in the order the relay reads them', () => {
    const sources = sourcesOf(
      allOutboxes(),
      outboxStarters(unused, 'q', scheduler, { eager: () => true, searchAttributes: [] }),
      data,
    );
    assert.deepEqual(
      sources.map((s) => s.name),
      [
        'webhook delivery',
        'message',
        'campaign',
        'sourcing run',
        'quote expiry',
        'invoice due date',
        'agent schedule',
        'member mail',
      ],
    );
    assert.deepEqual(
      sources.filter((s) => s.fair).map((s) => s.name),
      ['webhook delivery', 'message'],
    );
    assert.deepEqual(
      sources.filter((s) => s.traced).map((s) => s.name),
      ['webhook delivery', 'message'],
    );
  });

  it('refuses to start with an outbox that has no starter, or a starter that has no outbox', () => {
    const start = async () => undefined;
    assert.throws(
      () => sourcesOf([outbox('a'), outbox('b')], [{ outbox: 'a', start }], data),
      /no starter for \[b\]/,
    );
    assert.throws(
      () =>
        sourcesOf(
          [outbox('a')],
          [
            { outbox: 'a', start },
            { outbox: 'c', start },
          ],
          data,
        ),
      /no outbox for \[c\]/,
    );
    assert.throws(
      () =>
        sourcesOf(
          [outbox('a')],
          [
            { outbox: 'a', start },
            { outbox: 'a', start },
          ],
          data,
        ),
      /two starters share an outbox/,
    );
  });

  it('marks a row once its job has started, where the outbox marks its rows', async () => {
    const done: string[] = [];
    const [source] = sourcesOf(
      [outbox('a', async (row) => void done.push(`marked ${row}`))],
      [{ outbox: 'a', start: async (row) => void done.push(`started ${String(row)}`) }],
      data,
    );
    await source!.start('r1');
    assert.deepEqual(done, ['started r1', 'marked r1']);
  });

  it('wakes each outbox under its declared name: no area NOTIFYs a name written out', () => {
    const literal = domainSources().filter((f) => /relayNotice\(\s*['"`]/.test(f.text));
    assert.deepEqual(namesOf(literal), []);
  });

  it("names the rows' workspace in every notice, which wakes only the relay holding its slot", () => {
    // A notice without one wakes every worker's relay, each to read its own slots for nothing.
    const everyRelay = domainSources().filter((f) => /relayNotice\(\s*[A-Z_]+\s*\)/.test(f.text));
    assert.deepEqual(namesOf(everyRelay), []);
  });
});
