import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { cpuMeter } from './process-cpu';
import { Recorder, type Measured } from './stats';

export type NextRequest = () => Pick<autocannon.Request, 'method' | 'path' | 'headers' | 'body'>;

/**
 * Drives `url` with `connections` keep-alive connections for `seconds`, asking `next` for every
 * request so paths, keys and bodies change per request.
 */
export function hammer(
  url: string,
  connections: number,
  seconds: number,
  next: NextRequest,
): Promise<Measured> {
  const recorder = new Recorder();
  const started = performance.now();
  const cpu = cpuMeter();
  return new Promise<Measured>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        timeout: 10,
        requests: [{ setupRequest: (req) => ({ ...req, ...next() }) }],
      },
      (err: unknown, result) => {
        if (err) reject(err instanceof Error ? err : new Error('autocannon failed', { cause: err }));
        // A timed-out request never answers, so it is counted from autocannon's own tally.
        else {
          const measured = recorder.summary((performance.now() - started) / 1000);
          resolve({ ...measured, errors: result.errors, ...cpu.per(measured.requests) });
        }
      },
    );
    instance.on('response', (_client, status, _bytes, ms) => recorder.response(status, ms));
  });
}
