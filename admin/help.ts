import { commands, type Command } from './commands';
import { flagsOf, type Flag } from './flags';

const WIDTH = 100;
const RUN = 'npm run -s admin --';

/** Words (or usage parts, kept whole) in lines of at most WIDTH columns: `first` starts the first, `rest` the others. */
function wrap(parts: string[], first: string, rest = first): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const part of parts) {
    if (!empty && line.length + 1 + part.length > WIDTH) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line += (empty ? '' : ' ') + part;
    empty = false;
  }
  return [...lines, line].map((l) => l.trimEnd());
}

const words = (text: string) => text.split(/\s+/).filter(Boolean);
const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - text.length));

/** What goes after the flag: its few choices, N for a number, or its name in capitals. */
function placeholder(flag: Flag) {
  if (flag.switch) return '';
  if (flag.form === 'json') return ' JSON';
  const choices = flag.enum?.map(String).join('|');
  const one =
    choices && choices.length <= 24
      ? choices
      : flag.type === 'integer' || flag.type === 'number'
        ? 'N'
        : flag.name.toUpperCase().replaceAll('-', '_');
  return flag.form === 'list' ? ` ${one},...` : ` ${one}`;
}

/** `quote send --quote QUOTE [--workspace WORKSPACE]`, as parts that a line break may not split. */
function usageParts(command: Command): string[] {
  const flags = flagsOf(command).map((f) => {
    const flag = `--${f.name}${placeholder(f)}`;
    return f.required ? flag : `[${flag}]`;
  });
  return [command.binding.command, ...flags];
}

export const usage = (command: Command) => usageParts(command).join(' ');

const groups = () => {
  const byGroup = new Map<string, Command[]>();
  for (const key of [...commands.keys()].sort()) {
    const group = key.split(' ')[0]!;
    byGroup.set(group, [...(byGroup.get(group) ?? []), commands.get(key)!]);
  }
  return byGroup;
};

export const groupNames = () => [...groups().keys()];
export const commandsOf = (group: string) => groups().get(group) ?? [];
const verb = (command: Command) => command.binding.command.split(' ').slice(1).join(' ');

/** `--help`: every group, each command with its title. */
export function overview(): string {
  const width = Math.max(...[...commands.values()].map((c) => verb(c).length)) + 2;
  const lines = [
    `usage: ${RUN} <group> <command> [--flags]`,
    `       ${RUN} <group> --help              a group's commands, with their flags`,
    `       ${RUN} <group> <command> --help    what a command does, and each flag`,
    '',
    'It prints the answer as JSON on stdout; an error is one line on stderr, with exit code 1.',
  ];
  for (const [group, list] of groups()) {
    lines.push('', group);
    for (const c of list) lines.push(`  ${pad(verb(c), width)}${c.operation.title}`);
  }
  return lines.join('\n') + '\n';
}

/** `<group> --help`: its commands, each with its title and usage. */
export function groupHelp(group: string): string {
  const list = commandsOf(group);
  const width = Math.max(...list.map((c) => verb(c).length)) + 2;
  const lines = [
    `usage: ${RUN} ${group} <command> [--flags]`,
    `       ${RUN} ${group} <command> --help    what a command does, and each flag`,
  ];
  for (const c of list) {
    const indent = ' '.repeat(2 + width);
    lines.push(
      '',
      `  ${pad(verb(c), width)}${c.operation.title}`,
      ...wrap(usageParts(c), indent, indent + '  '),
    );
  }
  return lines.join('\n') + '\n';
}

/** What a flag's description leaves unsaid: how to write the value, its choices, its default. */
function notes(flag: Flag): string[] {
  const said = flag.description.toLowerCase();
  const out: string[] = [];
  if (flag.form === 'list' && !said.includes('comma')) out.push('Comma-separated.');
  if (flag.form === 'json' && !said.includes('json')) out.push('JSON.');
  if (flag.enum && !flag.enum.every((v) => flag.description.includes(String(v))))
    out.push(`One of: ${flag.enum.map(String).join(', ')}.`);
  const def = flag.default;
  if ((typeof def === 'string' || typeof def === 'number') && def !== '' && !said.includes('default'))
    out.push(`Default: ${def}.`);
  return out;
}

/** `<group> <command> --help`: usage, what it does and returns, and each flag. */
export function commandHelp(command: Command): string {
  const op = command.operation;
  const flags = flagsOf(command);
  const names = flags.map((f) => [f.name, ...f.aliases].map((n) => `--${n}`).join(', '));
  const width = Math.max(0, ...names.map((n) => n.length)) + 2;
  const indent = ' '.repeat(2 + width + 'required  '.length);
  const lines = [
    ...wrap(usageParts(command), `usage: ${RUN} `, '    '),
    '',
    ...wrap(words(`${op.title}. ${op.description}`), ''),
    '',
    ...wrap(words(`Prints: ${op.returns}`), ''),
  ];
  if (flags.length > 0) lines.push('', 'flags:');
  flags.forEach((f, i) => {
    const head = `  ${pad(names[i]!, width)}${f.required ? 'required' : 'optional'}  `;
    lines.push(...wrap([...words(f.description), ...notes(f).flatMap(words)], head, indent));
  });
  return lines.join('\n') + '\n';
}
