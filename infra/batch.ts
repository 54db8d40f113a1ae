/**
 * Group commit: calls made in the same turn of the event loop share one `run` of up to `max` items
 * (any more wait for the next turn), and each caller gets its own answer, or the batch's error. Under
 * load this turns one round trip and one commit per request into one per batch; a lone call waits only
 * for the end of its turn.
 */
export function batched<I, O>(run: (items: I[]) => Promise<O[]>, max = 200): (item: I) => Promise<O> {
  const queue: { item: I; resolve: (answer: O) => void; reject: (err: unknown) => void }[] = [];
  let scheduled = false;

  const flush = async () => {
    scheduled = false;
    const batch = queue.splice(0, max);
    if (queue.length > 0) schedule();
    try {
      const answers = await run(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(answers[i]!));
    } catch (err) {
      batch.forEach((b) => b.reject(err));
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}
