import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { claimDataDir, heldMessage } from '../../tooling/dev-lock';
import { repoRoot } from '../../tooling/paths';

describe('npm run dev owns its data folder', () => {
  const root = path.join(repoRoot(), '.data');
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(path.join(root, 'dev-lock-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const lock = (pid: number) => writeFileSync(path.join(dir, 'dev.lock'), JSON.stringify({ pid }));
  const stack = path.join(dir, 'dev-stack.json');

  it('takes a free folder and gives it back', () => {
    const claim = claimDataDir(dir);
    assert.ok('release' in claim);
    assert.ok(existsSync(path.join(dir, 'dev.lock')));
    assert.ok(!('heldBy' in claimDataDir(dir)), 'its own lock is not another run');
    claim.release();
    assert.ok(!existsSync(path.join(dir, 'dev.lock')));
  });

  it('refuses a folder a live run holds, naming it and its URLs, and touches nothing', () => {
    const other = spawn('sleep', ['30']);
    try {
      lock(other.pid!);
      writeFileSync(stack, JSON.stringify({ pid: other.pid, apiUrl: 'http://127.0.0.1:3999' }));
      const claim = claimDataDir(dir);
      assert.ok('heldBy' in claim);
      assert.equal(claim.heldBy.pid, other.pid);
      const message = heldMessage(dir, claim.heldBy);
      assert.match(message, new RegExp(`pid ${other.pid}\\.`));
      assert.match(message, /API base URL:\s+http:\/\/127\.0\.0\.1:3999\/api\/v1/);
      assert.ok(existsSync(stack), "the running stack's file stays");
    } finally {
      other.kill();
    }
  });

  it('clears a lock left by a run that was killed, with its stack file, and takes the folder', () => {
    const gone = spawnSync('true').pid;
    lock(gone);
    writeFileSync(stack, '{}');
    const claim = claimDataDir(dir);
    assert.ok('release' in claim);
    assert.ok(!existsSync(stack));
    claim.release();
  });
});
