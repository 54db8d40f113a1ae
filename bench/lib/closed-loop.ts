import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { NextRequest } from './load';
import { Recorder, type Measured } from './stats';

/**
 * One connection, one request at a time, for `seconds`: the latency a single caller sees, with no
 * queueing behind other requests, timed with sub-millisecond resolution.
 */
export async function oneAtATime(url: string, seconds: number, next: NextRequest): Promise<Measured> {
  const [measured] = await inTurn(url, seconds, [next]);
  return measured!;
}

/**
 * `oneAtATime` for several kinds of request taking turns on the one connection (A, B, A, B...), each
 * timed on its own: kinds compared this way see the same machine at the same moments, where runs one
 * after the other would also measure whatever else the machine did in between.
 */
export async function inTurn(url: string, seconds: number, nexts: NextRequest[]): Promise<Measured[]> {
  return (await inTurnWithTotal(url, seconds, nexts)).each;
}

/** `inTurn`, and every response of all the kinds together as one more measurement. */
export async function inTurnWithTotal(
  url: string,
  seconds: number,
  nexts: NextRequest[],
): Promise<{ each: Measured[]; total: Measured }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const recorders = nexts.map(() => new Recorder());
  const total = new Recorder();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  try {
    for (let turn = 0; performance.now() < deadline; turn = (turn + 1) % nexts.length) {
      const req = nexts[turn]!();
      const recorder = recorders[turn]!;
      const t0 = performance.now();
      try {
        const status = await send(agent, new URL(req.path ?? '/', url), req);
        const ms = performance.now() - t0;
        recorder.response(status, ms);
        total.response(status, ms);
      } catch {
        recorder.error();
        total.error();
      }
    }
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - started) / 1000;
  return { each: recorders.map((r) => r.summary(elapsed)), total: total.summary(elapsed) };
}

function send(agent: http.Agent, url: URL, req: ReturnType<NextRequest>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const r = http.request(url, { agent, method: req.method ?? 'GET', headers: req.headers }, (res) => {
      // The body is read to the end, as a caller would, before the clock stops.
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    r.setTimeout(10_000, () => r.destroy(new Error('timed out')));
    r.on('error', reject);
    r.end(req.body);
  });
}
