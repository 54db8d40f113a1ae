import type { Logger, LogFields } from '../../infra/logger';

/**
 * Progress goes to stderr as plain lines: stdout is kept for the results table and the final JSON
 * line, so `npm run -s bench -- api | tail -1` is machine-readable.
 */
export function benchLogger(name: string, bound: LogFields = {}): Logger {
  const write = (level: string) => (msg: string, fields?: LogFields) => {
    const all = { ...bound, ...fields };
    const extra = Object.keys(all).length > 0 ? ` ${JSON.stringify(all)}` : '';
    process.stderr.write(`[${name}]${level === 'info' ? '' : ` ${level}:`} ${msg}${extra}\n`);
  };
  return {
    debug: () => undefined,
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (bindings) => benchLogger(name, { ...bound, ...bindings }),
  };
}
