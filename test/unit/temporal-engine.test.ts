import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SEARCH_ATTRIBUTE_PAIRS } from '../../domain/kernel/search-attributes';
import {
  DEFAULT_GOTOOLCHAIN,
  ensureGoBinary,
  TEMPORAL_SERVER,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
} from '../../tooling/go-binaries';
import { createLogger } from '../../infra/logger';
import { repoRoot } from '../../tooling/paths';
import { scriptCommand } from '../../tooling/service-process';
import { historyShardCount } from '../../tooling/temporal-cluster';

const read = (file: string) => readFileSync(path.join(repoRoot(), file), 'utf8');

describe('one Temporal engine, declared once', () => {
  it('docker-compose, docs/deploying.md and npm run cluster pin the same server and UI versions', () => {
    const compose = read('docker-compose.yml');
    const servers = [...compose.matchAll(/TEMPORAL_VERSION:-([\d.]+)\}/g)].map((m) => m[1]);
    assert.deepEqual(servers, [TEMPORAL_SERVER_VERSION, TEMPORAL_SERVER_VERSION, TEMPORAL_SERVER_VERSION]);
    assert.deepEqual(
      [...compose.matchAll(/TEMPORAL_UI_VERSION:-([\d.]+)\}/g)].map((m) => m[1]),
      [TEMPORAL_UI_VERSION],
    );
    const doc = read('docs/deploying.md');
    assert.ok(
      doc.includes(`Temporal server ${TEMPORAL_SERVER_VERSION}`),
      'docs/deploying.md names the server version',
    );
    assert.ok(doc.includes(`UI ${TEMPORAL_UI_VERSION}`), 'docs/deploying.md names the UI version');
    assert.ok(doc.includes(`GOTOOLCHAIN=${DEFAULT_GOTOOLCHAIN}`), 'docs/deploying.md names the Go toolchain');
  });

  it('create-namespace.sh registers exactly the search attributes the code declares, with their types', () => {
    const line = /^SEARCH_ATTRIBUTES="([^"]*)"$/m.exec(read('deploy/temporal/create-namespace.sh'))?.[1];
    assert.deepEqual(line?.split(' '), SEARCH_ATTRIBUTE_PAIRS);
  });

  it('setup-schema.sh uses the schemas built into temporal-sql-tool, not the image’s folder', () => {
    const script = read('deploy/temporal/setup-schema.sh');
    assert.match(script, /update-schema --schema-name "postgresql\/v12\/\$schema"/);
    assert.doesNotMatch(script, /\/etc\/temporal\/schema/);
  });

  it('reads the history shard count a cluster was created with from its stored metadata', () => {
    // cluster_name "active" (field 1), history_shard_count 512 (field 2, varint), cluster_id (field 3).
    const stored = Buffer.concat([
      Buffer.from([0x0a, 6]),
      Buffer.from('active'),
      Buffer.from([0x10, 0x80, 0x04]),
      Buffer.from([0x1a, 2]),
      Buffer.from('id'),
    ]);
    assert.equal(historyShardCount(stored), 512);
    assert.equal(historyShardCount(Buffer.from([0x0a, 1, 0x61])), undefined);
  });

  it('says what to install when Go is missing, and builds nothing', async () => {
    const path0 = process.env.PATH;
    const cache0 = process.env.LEAD_SERVICE_TOOL_CACHE;
    process.env.PATH = '/nonexistent';
    process.env.LEAD_SERVICE_TOOL_CACHE = path.join(repoRoot(), '.data', `no-tool-cache-${process.pid}`);
    try {
      await assert.rejects(
        ensureGoBinary({ ...TEMPORAL_SERVER, version: '0.0.0-missing' }, createLogger('test', 'error')),
        /temporal-server 0\.0\.0-missing is built from the Go module go\.temporal\.io\/server, and Go is not installed \(no `go` on PATH\)\. Install Go/,
      );
    } finally {
      process.env.PATH = path0;
      if (cache0 === undefined) delete process.env.LEAD_SERVICE_TOOL_CACHE;
      else process.env.LEAD_SERVICE_TOOL_CACHE = cache0;
    }
  });

  it('runs the processes with the very command lines npm start and npm run worker run', () => {
    assert.deepEqual(scriptCommand('start'), { env: {}, args: ['dist/api/main.js'] });
    const worker = scriptCommand('worker');
    assert.equal(worker.env.MALLOC_ARENA_MAX, '2');
    assert.deepEqual(worker.args, [
      '--max-old-space-size=512',
      '--max-semi-space-size=2',
      '--heap-growing-percent=10',
      'dist/worker/main.js',
    ]);
  });
});
