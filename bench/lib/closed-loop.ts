import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { NextRequest } from './load';
import { Recorder, type Measured } from './stats';

/**
 * One connection, one request at a time, for `seconds`: the latency a single caller sees, with no
 * queueing behind other requests, timed with sub-millisecond resolution.
 */
export async function oneAtATime(url: string, seconds: number, next: NextRequest): Promise<Measured> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const recorder = new Recorder();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  try {
    while (performance.now() < deadline) {
      const req = next();
      const t0 = performance.now();
      try {
        const status = await send(agent, new URL(req.path ?? '/', url), req);
        recorder.response(status, performance.now() - t0);
      } catch {
        recorder.error();
      }
    }
  } finally {
    agent.destroy();
  }
  return recorder.summary((performance.now() - started) / 1000);
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
