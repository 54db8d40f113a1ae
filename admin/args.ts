import { parseArgs } from 'node:util';
import { DomainError } from '../domain/kernel/errors';
import { commands, type Command } from './commands';
import { flagsOf } from './flags';
import { commandHelp, commandsOf, groupHelp, groupNames, overview, usage } from './help';

const HELP = 'npm run -s admin -- --help';

const flagError = (message: string) => new DomainError('invalid_request', message, { field: 'flag' });

/**
 * `group command --flag value ...` → help to print, or the command and its flags. Nothing here needs
 * the database or Temporal, so help and usage errors answer before anything connects.
 */
export function parseArgv(
  argv: string[],
): { help: string } | { command: Command; flags: Record<string, string> } {
  const [group, verb, ...rest] = argv;
  if (group === '--help' || group === '-h') return { help: overview() };
  if (group === undefined || group.startsWith('-')) throw new Error(`no command given; ${HELP} lists them`);
  const inGroup = commandsOf(group);
  if (inGroup.length === 0) {
    throw new Error(
      `unknown command "${argv.slice(0, 2).join(' ')}"; groups: ${groupNames().join(', ')}; ${HELP} lists the commands`,
    );
  }
  if (verb === '--help' || verb === '-h') return { help: groupHelp(group) };
  const command = verb === undefined ? undefined : commands.get(`${group} ${verb}`);
  if (!command) {
    const verbs = inGroup.map((c) => c.binding.command.split(' ')[1]).join(', ');
    const what = verb === undefined ? `no ${group} command given` : `unknown command "${group} ${verb}"`;
    throw new Error(`${what}; ${group} commands: ${verbs}`);
  }
  const end = rest.indexOf('--');
  if (rest.slice(0, end < 0 ? undefined : end).some((a) => a === '--help' || a === '-h'))
    return { help: commandHelp(command) };
  return { command, flags: readFlags(command, rest) };
}

/**
 * The flags the command's binding reads, and `--workspace` where it takes one. Anything else is
 * refused with the flag's name and the usage: a mistyped flag must not run the command without it.
 */
function readFlags(command: Command, args: string[]): Record<string, string> {
  const byName = new Map(flagsOf(command).flatMap((f) => [f.name, ...f.aliases].map((n) => [n, f] as const)));
  const options = Object.fromEntries(
    [...byName].map(([n, f]) => [n, { type: f.switch ? ('boolean' as const) : ('string' as const) }]),
  );
  // Not strict: its refusals are Node's sentences; checking the tokens here names the flag and the usage.
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  const how = `usage: ${usage(command)}`;
  const given: Record<string, string> = {};
  for (const t of tokens) {
    if (t.kind === 'positional') throw new Error(`unexpected argument "${t.value}"; ${how}`);
    if (t.kind !== 'option') continue;
    const flag = byName.get(t.name);
    if (!flag) throw flagError(`unknown flag ${t.rawName} for "${command.binding.command}"; ${how}`);
    if (flag.switch) {
      if (t.value !== undefined) throw flagError(`${t.rawName} takes no value; ${how}`);
      // Bindings read text, as before parseArgs: a switch given is 'true'.
      given[t.name] = 'true';
    } else if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--'))) {
      // parseArgs takes `--id --reason` as id "--reason"; the old parser, and the operator, meant two flags.
      throw flagError(`${t.rawName} needs a value; ${how}`);
    } else given[t.name] = t.value;
  }
  return given;
}
