import net from 'node:net';
import path from 'node:path';
import { labelled, type Stops } from './cleanup';
import { repoRoot } from './paths';
import { freePort, spawnServer, stopChild, waitFor } from './processes';

export type MailCatcher = { smtpUrl: string; webUrl: string; pid: number };

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/**
 * MailDev (from npm) for `npm run dev`: a real SMTP server on loopback that keeps what the service
 * sends, with a page to read it. Mail is kept under `dir`, so it survives a restart.
 */
export async function startMailCatcher(stops: Stops, dir: string): Promise<MailCatcher> {
  const smtp = await freePort(1025);
  const web = await freePort(1080);
  const child = spawnServer(process.execPath, [
    // Its package exports no CLI path: the bin as npm installs it.
    path.join(repoRoot(), 'node_modules', 'maildev', 'dist', 'bin', 'maildev.js'),
    '--smtp',
    String(smtp),
    '--web',
    String(web),
    '--ip',
    '127.0.0.1',
    '--web-ip',
    '127.0.0.1',
    '--mail-directory',
    dir,
    '--silent',
  ]);
  child.stderr.pipe(process.stderr);
  stops.push(labelled('MailDev', () => stopChild(child)));
  await waitFor(
    'MailDev to accept SMTP connections',
    async () => (await accepts(smtp)) || undefined,
    30_000,
    100,
  );
  return { smtpUrl: `smtp://127.0.0.1:${smtp}`, webUrl: `http://127.0.0.1:${web}`, pid: child.pid! };
}
