/** `group command --flag value --switch` → { group, command, flags }. */
export function parseArgs(argv: string[]) {
  const [group, command, ...rest] = argv;
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"; flags look like --name value`);
    const eq = arg.indexOf('=');
    if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1);
    else {
      const next = rest[i + 1];
      if (next === undefined || next.startsWith('--')) flags[arg.slice(2)] = 'true';
      else {
        flags[arg.slice(2)] = next;
        i++;
      }
    }
  }
  return { group, command, flags };
}
