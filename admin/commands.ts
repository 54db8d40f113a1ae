import type { AdminBinding, AnyOperation } from '../domain/kernel/operation';
import { allOperations } from '../domain/registry';

/** One admin command: the registered operation it runs, and how (from the operation's declaration). */
export type Command = { operation: AnyOperation; binding: AdminBinding<unknown> };

/** Every admin command, `group command` → what it runs; derived from the registry, never listed here. */
export const commands: ReadonlyMap<string, Command> = new Map(
  allOperations().flatMap((operation): [string, Command][] => {
    const binding = operation.doors.admin as AdminBinding<unknown> | undefined;
    return binding ? [[binding.command, { operation, binding }]] : [];
  }),
);
