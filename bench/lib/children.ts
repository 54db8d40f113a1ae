import { spawn, type ChildProcess } from 'node:child_process';
import { repoRoot } from '../../infra/paths';
import { stopChild, waitFor } from '../../infra/processes';

export type Service = { url: string; pid: number; stop: () => Promise<void> };

/**
 * Runs a TypeScript entry point in its own Node process (as `npm start` would run the built one),
 * so the server under test never shares an event loop or a CPU queue slot with the load generator.
 * Its stdout joins our stderr: the bench's stdout is kept for results.
 */
export async function startService(
  what: string,
  entry: string,
  port: number,
  env: NodeJS.ProcessEnv,
  probePath: string,
): Promise<Service> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: repoRoot(),
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', process.stderr, process.stderr],
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`${what} exited (${code ?? signal}) while starting`))),
  );
  exited.catch(() => undefined);
  const stop = () => stopChild(child, 'SIGTERM');
  try {
    // Any HTTP answer will do (the API says 401 without a key): it means the server is listening.
    await Promise.race([exited, waitFor(`${what} to answer`, async () => (await fetch(url + probePath)).status > 0)]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid: child.pid!, stop };
}
