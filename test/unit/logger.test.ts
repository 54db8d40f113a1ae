import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger, type LogLevel } from '../../infra/logger';

/** A logger whose lines land in an array, parsed. */
const captured = (minLevel: LogLevel = 'debug') => {
  const lines: string[] = [];
  const log = createLogger('unit', minLevel, { write: (line) => void lines.push(line) });
  return { log, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
};

const KEY = 'lk_live_0123456789abcdefghijABCDEFGHIJ0123456789';
const SECRET = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LWZvci10ZXN0cw';

describe('logger', () => {
  it('writes one JSON line per entry: level as a label, ISO time, name, fields, msg', () => {
    const { log, lines, parsed } = captured('info');
    log.debug('below the level');
    log.info('lead created', { lead_id: 'l_1', count: 2 });
    log.error('failed');
    assert.equal(lines.length, 2);
    assert.ok(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n')));
    const [info, error] = parsed();
    assert.deepEqual(
      { ...info, time: undefined },
      { level: 'info', time: undefined, name: 'unit', lead_id: 'l_1', count: 2, msg: 'lead created' },
    );
    assert.match(info!.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(error!.level, 'error');
  });

  it('redacts keys, secrets and contact details by field name at any depth, whatever the spelling', () => {
    const { log, lines, parsed } = captured();
    log.info('intake', {
      Authorization: `Bearer ${KEY}`,
      'x-api-key': KEY,
      apiKey: KEY,
      signing_secret: SECRET,
      lead: {
        id: 'l_1',
        first_name: 'Ana',
        lastName: 'Lima',
        contact: { email: 'ana@example.com', phone: '+33612345678', address: { postcode: 'N1 9GU' } },
        messages: [{ id: 'm_1', body: 'call me on 0612345678' }],
      },
      config: { smtp: { password: 'hunter2' }, sms: { authToken: 'tok' }, secretsKey: Buffer.alloc(4) },
      taskToken: 'abc',
      idempotency_key: 'idem-1',
      key_prefix: 'lk_live_0123',
    });
    const [line] = parsed();
    assert.deepEqual(line!.lead, {
      id: 'l_1',
      first_name: '[redacted]',
      lastName: '[redacted]',
      contact: { email: '[redacted]', phone: '[redacted]', address: '[redacted]' },
      messages: [{ id: 'm_1', body: '[redacted]' }],
    });
    for (const k of ['Authorization', 'x-api-key', 'apiKey', 'signing_secret', 'taskToken'])
      assert.equal(line![k], '[redacted]', k);
    assert.deepEqual(line!.config, {
      smtp: { password: '[redacted]' },
      sms: { authToken: '[redacted]' },
      secretsKey: '[redacted]',
    });
    // Names that merely contain "key" are not credentials.
    assert.equal(line!.idempotency_key, 'idem-1');
    for (const leaked of [KEY, SECRET, 'ana@example.com', '+33612345678', '0612345678', 'N1 9GU', 'hunter2'])
      assert.ok(!lines[0]!.includes(leaked), leaked);
  });

  it("scrubs a key's, a secret's and an email's shape out of the message and any text, errors included", () => {
    const { log, lines, parsed } = captured();
    log.warn(`refused ${KEY} for ana@example.com`, {
      error: new Error(`signing with ${SECRET} failed`),
      url: 'postgres://leads:pa55word@db:5432/leads',
      header: `Bearer ${KEY}`,
      nested: [[`${SECRET}`]],
    });
    const [line] = parsed();
    assert.equal(line!.msg, 'refused lk_live_[redacted] for [redacted]');
    assert.match(line!.error as string, /^Error: signing with whsec_\[redacted\] failed\n\s+at /);
    assert.equal(line!.url, 'postgres://[redacted]@db:5432/leads');
    assert.equal(line!.header, 'Bearer [redacted]');
    for (const leaked of [KEY, SECRET, 'ana@example.com', 'pa55word']) assert.ok(!lines[0]!.includes(leaked));
  });

  it('gives children their bindings on every line, redacted the same way', () => {
    const { log, parsed } = captured();
    const child = log.child({ request_id: 'req_1', email: 'ana@example.com' });
    child.info('one');
    child.child({ workflow_id: 'w_1' }).warn('two', { phone: '+33612345678' });
    log.info('parent');
    const [one, two, parent] = parsed();
    assert.equal(one!.request_id, 'req_1');
    assert.equal(one!.email, '[redacted]');
    assert.deepEqual([two!.request_id, two!.workflow_id, two!.phone], ['req_1', 'w_1', '[redacted]']);
    assert.equal(parent!.request_id, undefined);
  });

  it('keeps a field named like a line key (name, msg) from duplicating it, and survives a cycle', () => {
    const { log, lines, parsed } = captured();
    const cyclic: Record<string, unknown> = { id: 'c' };
    cyclic.self = cyclic;
    log.info('fields', { msg: 'theirs', name: 'Ana Lima', cyclic });
    assert.equal((lines[0]!.match(/"msg":/g) ?? []).length, 1);
    assert.equal((lines[0]!.match(/"name":/g) ?? []).length, 1);
    const [line] = parsed();
    assert.equal(line!.msg, 'fields');
    assert.equal(line!.name, 'unit');
    assert.equal(line!.field_msg, 'theirs');
    assert.equal(line!.field_name, '[redacted]');
    assert.ok(!lines[0]!.includes('Ana Lima'));
  });

  it('writes debug and info to stdout, warn and error to stderr', (t) => {
    const out: string[] = [];
    const err: string[] = [];
    const stdout = t.mock.method(process.stdout, 'write', (chunk: string) => out.push(chunk) > 0);
    const stderr = t.mock.method(process.stderr, 'write', (chunk: string) => err.push(chunk) > 0);
    try {
      const log = createLogger('streams', 'debug');
      log.debug('d');
      log.info('i');
      log.warn('w');
      log.error('e');
    } finally {
      stdout.mock.restore();
      stderr.mock.restore();
    }
    const msgs = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    assert.deepEqual(msgs(out), ['d', 'i']);
    assert.deepEqual(msgs(err), ['w', 'e']);
  });
});
