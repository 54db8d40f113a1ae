/**
 * How a lower area lets a higher one act, in the same transaction, without importing it: the lower
 * area declares a hook and raises it; the higher area's handler is wired in `domain/registry.ts`, where
 * the areas meet (leads raises "a lead wants an opportunity"; sales opens one). A hook with no handler is
 * a wiring fault, not a quiet no-op: raising it throws.
 */
export type Hook<Args extends unknown[], Result = void> = {
  readonly name: string;
  /** Adds a handler (once); handlers run in the order they were added. */
  on(handler: (...args: Args) => Promise<Result>): void;
  /** Runs every handler in turn and answers what each returned. */
  raise(...args: Args): Promise<Result[]>;
};

/** Whether any handler of a yes-or-no hook answered yes. */
export const anyYes = async (answers: Promise<boolean[]>) => (await answers).some(Boolean);

export function defineHook<Args extends unknown[], Result = void>(name: string): Hook<Args, Result> {
  const handlers: ((...args: Args) => Promise<Result>)[] = [];
  return {
    name,
    on(handler) {
      if (!handlers.includes(handler)) handlers.push(handler);
    },
    async raise(...args) {
      if (handlers.length === 0)
        throw new Error(
          `the hook ${name} has no handler (services come from composeServices in domain/registry.ts)`,
        );
      const results: Result[] = [];
      for (const handler of handlers) results.push(await handler(...args));
      return results;
    },
  };
}
