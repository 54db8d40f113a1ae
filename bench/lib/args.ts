/**
 * `--name value` pairs, all positive integers (or 0 for the flags in `zeroAllowed`, where 0 means
 * "skip"); anything else stops the bench with a usage line.
 */
export function parseIntFlags<T extends Record<string, number>>(
  args: string[],
  defaults: T,
  usage: string,
  zeroAllowed: readonly (keyof T & string)[] = [],
): T {
  const out: Record<string, number> = { ...defaults };
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i]!;
    const name = flag.replace(/^--/, '');
    const raw = args[i + 1];
    if (!flag.startsWith('--') || !(name in defaults)) throw new UsageError(`unknown flag ${flag}`, usage);
    const least = zeroAllowed.includes(name) ? 0 : 1;
    if (raw === undefined || !/^\d+$/.test(raw) || Number(raw) < least)
      throw new UsageError(`${flag} needs a ${least === 0 ? 'non-negative' : 'positive'} integer`, usage);
    out[name] = Number(raw);
  }
  return out as T;
}

export class UsageError extends Error {
  constructor(problem: string, usage: string) {
    super(`${problem}\nusage: ${usage}`);
  }
}
