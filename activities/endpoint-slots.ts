/** An endpoint whose oldest attempt in flight is younger than this is answering quickly. */
const QUICK_MS = 1_000;
/** The longest an attempt waits in the activity for a quick endpoint's slot before it is `busy`. */
const WAIT_MS = 1_000;

type Waiter = {
  /** A ladder's first attempt (a new event, or a resend), which goes ahead of retries. */
  first: boolean;
  grant: () => void;
  refuse: () => void;
};

type Endpoint = {
  /** Start times of the attempts in flight, oldest first. */
  running: number[];
  /** Attempts waiting for a slot: first attempts, then retries, each first come first served. */
  waiting: Waiter[];
};

/**
 * At most `cap` attempts in flight per endpoint in this process. Over the cap, an attempt to an
 * endpoint that is answering quickly waits here briefly for a slot (a burst to one fast receiver
 * costs nothing extra), at most `cap` of them; otherwise, and for an endpoint whose oldest attempt
 * has run a second or more, the answer is no at once, so a slow receiver never holds more than its
 * cap of the worker's attempt slots and the attempt waits in its workflow instead.
 *
 * A ladder's first attempt goes ahead of the retries waiting here, and when the waiters are all
 * taken it takes the newest retry's place (that retry is told no, and waits in its workflow): an
 * endpoint's retries, which come back 30 s and more after each failure, never hold its new events
 * back.
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
    async take(endpointId: string, first = false): Promise<number | undefined> {
      const e = of(endpointId);
      const start = () => {
        const slot = now();
        e.running.push(slot);
        return slot;
      };
      if (e.running.length < cap) return start();
      const quick = now() - e.running[0]! < QUICK_MS;
      if (!quick) return undefined;
      if (e.waiting.length >= cap) {
        // Retries queue last: the newest waiter is a retry whenever any waiter is.
        if (!first || e.waiting.at(-1)!.first) return undefined;
        e.waiting.pop()!.refuse();
      }
      return new Promise<number | undefined>((resolve) => {
        const timer = setTimeout(() => {
          e.waiting.splice(e.waiting.indexOf(waiter), 1);
          resolve(undefined);
        }, WAIT_MS);
        const waiter: Waiter = {
          first,
          grant: () => {
            clearTimeout(timer);
            resolve(start());
          },
          // Already out of the queue: a first attempt took its place.
          refuse: () => {
            clearTimeout(timer);
            resolve(undefined);
          },
        };
        // A first attempt queues behind the first attempts waiting, ahead of every retry.
        const at = first ? e.waiting.findIndex((w) => !w.first) : -1;
        e.waiting.splice(at === -1 ? e.waiting.length : at, 0, waiter);
      });
    },
    give(endpointId: string, slot: number): void {
      const e = of(endpointId);
      e.running.splice(e.running.indexOf(slot), 1);
      const next = e.waiting.shift();
      if (next) next.grant();
      else if (e.running.length === 0) endpoints.delete(endpointId);
    },
  };
}
