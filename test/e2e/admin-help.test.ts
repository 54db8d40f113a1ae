import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commands } from '../../admin/commands';
import { flagsOf } from '../../admin/flags';
import { runAdmin } from '../helpers/admin';

describe('admin CLI help (npm run -s admin -- ... --help)', () => {
  // Nothing listens on port 1: help and flag refusals must answer without the database or Temporal.
  const env = { DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:1/none', TEMPORAL_ADDRESS: '127.0.0.1:1' };
  const admin = (...args: string[]) => runAdmin(env, args);

  const helps = (r: ReturnType<typeof admin>) => {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    for (const line of r.stdout.split('\n')) assert.ok(line.length <= 100, `over 100 columns: ${line}`);
    return r.stdout;
  };

  it('--help lists every group with its commands and their titles', () => {
    // As docs/admin-cli.md's command, through npm; the other calls run the same entry without npm.
    const out = helps(runAdmin(env, ['--help'], { via: 'npm' }));
    assert.match(out, /^usage: npm run -s admin -- <group> <command> \[--flags\]$/m);
    assert.match(out, /^quote$/m);
    assert.match(out, /^ {2}send +Send a quote$/m);
    assert.match(out, /^ {2}inbound-email-secret +Issue the workspace's inbound-email secret$/m);
    for (const name of commands.keys()) assert.match(out, new RegExp(`^ {2}${name.split(' ')[1]} `, 'm'));
  });

  it('<group> --help lists its commands with their usage', () => {
    const out = helps(admin('quote', '--help'));
    assert.match(out, /^ {2}send +Send a quote$/m);
    assert.match(out, /^ +quote send --quote QUOTE \[--workspace WORKSPACE\]$/m);
    assert.match(out, /^ +quote list --workspace WORKSPACE \[--lead LEAD\] \[--limit N\]$/m);
    assert.doesNotMatch(out, /invoice issue/);
  });

  it('<group> <command> --help prints usage, description and each flag, whatever else is given', () => {
    const out = helps(admin('key', 'create', '--name', 'x', '--help'));
    assert.match(
      out,
      /^usage: npm run -s admin -- key create --workspace WORKSPACE --owner OWNER --name NAME$/m,
    );
    assert.match(out, /^ +--scopes SCOPES,\.\.\. \[--expires-in-days N\] \[--allow-ip ALLOW_IP,\.\.\.\]$/m);
    assert.match(out, /^Create an API key\. Creates an API key for a member/m);
    assert.match(out, /^ {2}--workspace +required +The workspace it acts in/m);
    assert.match(out, /^ {2}--scopes +required +What the key may do; .* Comma-separated\.$/m);
    assert.match(out, /^ {2}--expires-in-days +optional +Days until it expires \(default 90\)\.$/m);
    // Two flags filling one field are one entry; -h works as --help.
    assert.match(helps(admin('invoice', 'get', '-h')), /^ {2}--invoice, --id +required +The invoice\.$/m);
  });

  it('refuses a flag the command does not take, in one line naming the flag and the usage', () => {
    const r = admin('quote', 'send', '--quote', 'q', '--foo', '1');
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      'error (flag): unknown flag --foo for "quote send"; usage: quote send --quote QUOTE [--workspace WORKSPACE]',
    );
    const bare = admin('quote', 'send', '--quote');
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /^error \(flag\): --quote needs a value; usage: quote send --quote QUOTE/);
    assert.equal(bare.stderr.split('\n').length, 1, bare.stderr);
  });

  it('finds a described input field behind every flag of every command', () => {
    for (const [name, command] of commands) {
      for (const flag of flagsOf(command)) {
        if (flag.name === 'workspace') continue;
        assert.ok(flag.field, `${name} --${flag.name} fills no input field the probe could see`);
        assert.ok(flag.description, `${name} --${flag.name} (${flag.field}) has no description`);
      }
    }
  });
});
