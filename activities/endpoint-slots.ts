/** An endpoint whose oldest attempt in flight is younger than this is answering quickly. */
const QUICK_MS = 1_000;
/** The longest an attempt waits in the activity for a quick endpoint's slot before it is `busy`. */
const WAIT_MS = 1_000;

type Endpoint = {
  /** Start times of the attempts in flight, oldest first. */
  running: number[];
  /** Attempts waiting for a slot, first come first served. */
  waiting: (() => void)[];
};

/**
 * At most `cap` attempts in flight per endpoint in this process. Over the cap, an attempt to an
 * endpoint that is answering quickly waits here briefly for a slot (a burst to one fast receiver
 * costs nothing extra), at most `cap` of them; otherwise, and for an endpoint whose oldest attempt
 * has run a second or more, the answer is no at once, so a slow receiver never holds more than its
 * cap of the worker's attempt slots and the attempt waits in its workflow instead.
 */
export function endpointSlots(cap: number, now: () => number = Date.now) {
  const endpoints = new Map<string, Endpoint>();
  const of = (id: string) => {
    let e = endpoints.get(id);
    if (!e) endpoints.set(id, (e = { running: [], waiting: [] }));
    return e;
  };
  return {
    /** A slot (hand it back with `give`), or undefined: the endpoint is busy. */
    async take(endpointId: string): Promise<number | undefined> {
      const e = of(endpointId);
      const start = () => {
        const slot = now();
        e.running.push(slot);
        return slot;
      };
      if (e.running.length < cap) return start();
      const quick = now() - e.running[0]! < QUICK_MS;
      if (!quick || e.waiting.length >= cap) return undefined;
      return new Promise<number | undefined>((resolve) => {
        const timer = setTimeout(() => {
          e.waiting.splice(e.waiting.indexOf(grant), 1);
          resolve(undefined);
        }, WAIT_MS);
        const grant = () => {
          clearTimeout(timer);
          resolve(start());
        };
        e.waiting.push(grant);
      });
    },
    give(endpointId: string, slot: number): void {
      const e = of(endpointId);
      e.running.splice(e.running.indexOf(slot), 1);
      const next = e.waiting.shift();
      if (next) next();
      else if (e.running.length === 0) endpoints.delete(endpointId);
    },
  };
}
