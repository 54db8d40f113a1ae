import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../../tooling/paths';
import { freshDatabase, type TestDatabase } from '../helpers/db';
import { eventsFor } from '../helpers/leads';

describe('admin CLI (npm run -s admin -- ...)', () => {
  let t: TestDatabase;
  before(async () => {
    t = await freshDatabase();
  });
  after(() => t.drop());

  const admin = (...args: string[]) => {
    const r = spawnSync('npm', ['run', '-s', 'admin', '--', ...args], {
      cwd: repoRoot(),
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: t.url, TEMPORAL_ADDRESS: '127.0.0.1:1', NODE_ENV: 'test' },
    });
    const stderr = r.stderr
      .split('\n')
      .filter((l) => l && !l.startsWith('npm warn'))
      .join('\n');
    return {
      code: r.status,
      json: r.status === 0 ? (JSON.parse(r.stdout) as Record<string, unknown>) : undefined,
      stderr,
    };
  };

  it('runs the operator contract: workspace, member, key, message inbound and audit, JSON on stdout', async () => {
    const ws = admin(
      'workspace',
      'create',
      '--name',
      'Acme',
      '--timezone',
      'Europe/London',
      '--industry',
      'solar',
    );
    assert.equal(ws.code, 0, ws.stderr);
    const workspaceId = ws.json!.id as string;
    const member = admin(
      'member',
      'add',
      '--workspace',
      workspaceId,
      '--email',
      'Ana@Acme.example',
      '--role',
      'member',
    );
    assert.equal(member.json!.email, 'ana@acme.example');
    assert.ok(member.json!.user_id);
    const key = admin(
      'key',
      'create',
      '--workspace',
      workspaceId,
      '--owner',
      'ana@acme.example',
      '--name',
      'crm',
      '--scopes',
      'leads:read,business:read',
      '--allow-ip',
      '10.0.0.0/8',
    );
    assert.equal(key.code, 0, key.stderr);
    assert.match(key.json!.key as string, /^lk_live_/);
    assert.deepEqual(key.json!.allowed_cidrs, ['10.0.0.0/8']);
    const listed = admin('key', 'list', '--workspace', workspaceId);
    assert.ok(!JSON.stringify(listed.json).includes(key.json!.key as string), 'key list never shows the key');
    const role = admin(
      'member',
      'set-role',
      '--workspace',
      workspaceId,
      '--email',
      'ana@acme.example',
      '--role',
      'viewer',
    );
    assert.equal(role.json!.role, 'viewer');

    const [lead] = await t.db.query<{ id: string }[]>(
      `INSERT INTO leads (workspace_id, first_name, email) VALUES ($1, 'Bo', 'bo@example.com') RETURNING id`,
      [workspaceId],
    );
    const msg = admin(
      'message',
      'inbound',
      '--lead',
      lead!.id,
      '--channel',
      'email',
      '--body',
      'Can you call me?',
    );
    assert.equal(msg.code, 0, msg.stderr);
    assert.equal(msg.json!.direction, 'inbound');
    const types = (await eventsFor(t.db, lead!.id)).map((e) => e.type);
    assert.deepEqual(types, ['message.received', 'reply.received']);

    const revoked = admin('key', 'revoke', '--id', key.json!.id as string);
    assert.ok(revoked.json!.revoked_at);
    const audit = admin('audit', 'list', '--workspace', workspaceId, '--limit', '3');
    const rows = audit.json as unknown as { action: string; door: string }[];
    assert.equal(rows.length, 3);
    assert.deepEqual(
      rows.map((r) => r.action),
      ['key.revoke', 'message.inbound', 'member.set_role'],
    );
  });

  it('reports errors as one line on stderr with exit code 1', () => {
    for (const args of [
      ['member', 'add', '--workspace', 'nope', '--email', 'x@y.z', '--role', 'member'],
      [
        'key',
        'create',
        '--workspace',
        '00000000-0000-4000-8000-000000000000',
        '--owner',
        'x@y.z',
        '--name',
        'n',
        '--scopes',
        'all',
      ],
      ['frobnicate', 'now'],
      ['delivery', 'list'],
    ]) {
      const r = admin(...args);
      assert.equal(r.code, 1, args.join(' '));
      assert.equal(r.stderr.split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^error/);
    }
  });
});
