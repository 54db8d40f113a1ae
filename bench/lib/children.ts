import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { repoRoot } from '../../tooling/paths';
import { stopChild, waitFor } from '../../tooling/processes';

export type Service = {
  url: string;
  pid: number;
  /** Requests the server saw cut off mid-body: autocannon drops its sockets when a phase ends. */
  abortedRequests: () => number;
  stop: () => Promise<void>;
};

// The API logs a request whose client went away while its body was unread as a failure with a stack.
const ABORTED = /"error":"Error: aborted\\n\s+at abortIncoming/;

/** Production runs compiled JavaScript (Dockerfile: npm run build); benches measure that, not tsx's overhead. */
export function buildForProduction() {
  const build = spawnSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: repoRoot(),
      encoding: 'utf8',
    },
  );
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stdout}${build.stderr}`);
}

/**
 * Runs an entry point in its own Node process (compiled JavaScript as `npm start` runs it, or a
 * TypeScript file through tsx), so the server under test never shares an event loop with the load generator. Its output joins our
 * stderr (stdout is kept for results), less the one line per request cut off at the end of a phase.
 */
export async function startService(
  what: string,
  entry: string,
  port: number,
  env: NodeJS.ProcessEnv,
  probePath: string,
  /** Node flags before the entry, e.g. `--cpu-prof`. */
  nodeFlags: string[] = [],
): Promise<Service> {
  const loader = entry.endsWith('.js') ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...nodeFlags, ...loader, entry], {
    cwd: repoRoot(),
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let aborted = 0;
  const relay = (stream: Readable) =>
    createInterface({ input: stream }).on('line', (line) => {
      if (ABORTED.test(line)) aborted += 1;
      else process.stderr.write(`[${what}] ${line}\n`);
    });
  relay(child.stdout);
  relay(child.stderr);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`${what} exited (${code ?? signal}) while starting`)),
    ),
  );
  exited.catch(() => undefined);
  const stop = () => stopChild(child, 'SIGTERM');
  try {
    // Any HTTP answer will do (the API says 401 without a key): the server is listening.
    await Promise.race([
      exited,
      waitFor(`${what} to answer`, async () => (await fetch(url + probePath)).status > 0),
    ]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid: child.pid!, abortedRequests: () => aborted, stop };
}
