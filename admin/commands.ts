import { adminBindings, type AdminBinding, type AnyOperation } from '../domain/kernel/operation';
import { allOperations } from '../domain/registry';

/** One admin command: the registered operation it runs, and how (from the operation's declaration). */
export type Command = { operation: AnyOperation; binding: AdminBinding<unknown> };

/** Every admin command, `group command` → what it runs; derived from the registry, never listed here. */
export const commands: ReadonlyMap<string, Command> = new Map(
  allOperations().flatMap((operation) =>
    adminBindings(operation).map((binding): [string, Command] => [binding.command, { operation, binding }]),
  ),
);

export const usage = () => `commands: ${[...commands.keys()].sort().join(', ')}`;
