/** `--name value` pairs, all positive integers; anything else stops the bench with a usage line. */
export function parseIntFlags<T extends Record<string, number>>(
  args: string[],
  defaults: T,
  usage: string,
): T {
  const out: Record<string, number> = { ...defaults };
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i]!;
    const name = flag.replace(/^--/, '');
    const raw = args[i + 1];
    if (!flag.startsWith('--') || !(name in defaults)) throw new UsageError(`unknown flag ${flag}`, usage);
    if (raw === undefined || !/^\d+$/.test(raw) || Number(raw) < 1)
      throw new UsageError(`${flag} needs a positive integer`, usage);
    out[name] = Number(raw);
  }
  return out as T;
}

export class UsageError extends Error {
  constructor(problem: string, usage: string) {
    super(`${problem}\nusage: ${usage}`);
  }
}
