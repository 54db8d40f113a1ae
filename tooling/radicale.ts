import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../infra/logger';
import { freePort, stopChild, waitFor } from './processes';
import { ensurePythonTool } from './python-tools';

/** Radicale, the CalDAV server the calendar tests (and `npm run dev`, on request) talk to; pinned. */
export const RADICALE = { name: 'radicale', packages: ['radicale==3.9.0'], bin: 'radicale' };

export type RadicaleServer = {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  username: string;
  password: string;
  /** Creates a calendar collection (MKCALENDAR) and answers its URL, ending in `/`. */
  createCalendar: (name: string) => Promise<string>;
  stop: () => Promise<void>;
};

/**
 * Starts Radicale on a free loopback port with its storage in a temporary folder, one user with a
 * plain-text htpasswd entry (the client's Basic auth is exercised, as against a real server), and
 * owner-only rights. Installed from PyPI into .tools/radicale on first use.
 */
export async function startRadicale(log: Logger): Promise<RadicaleServer> {
  const exe = ensurePythonTool(RADICALE, log);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'radicale-'));
  const username = 'calendar';
  const password = `pw-${process.pid}`;
  writeFileSync(path.join(dir, 'users'), `${username}:${password}\n`);
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${path.join(dir, 'users')}`,
      'htpasswd_encryption = plain',
      // Radicale delays failed logins by default; the tests try a wrong password on purpose.
      'delay = 0',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${path.join(dir, 'collections')}`,
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  const child = spawn(exe, ['--config', path.join(dir, 'config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const auth = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  try {
    await waitFor(
      'radicale',
      async () => {
        if (child.exitCode !== null) throw new Error(`radicale exited: ${stderr}`);
        return (await fetch(`${baseUrl}/.web/`).catch(() => undefined))?.ok;
      },
      30_000,
    );
  } catch (err) {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    baseUrl,
    username,
    password,
    createCalendar: async (name) => {
      const url = `${baseUrl}/${username}/${name}/`;
      const res = await fetch(url, {
        method: 'MKCALENDAR',
        headers: { authorization: auth, 'content-type': 'application/xml' },
        body: `<?xml version="1.0"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>${name}</D:displayname></D:prop></D:set></C:mkcalendar>`,
      });
      if (res.status !== 201) throw new Error(`MKCALENDAR ${url}: ${res.status} ${await res.text()}`);
      return url;
    },
    stop: async () => {
      await stopChild(child, 'SIGTERM', 5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
