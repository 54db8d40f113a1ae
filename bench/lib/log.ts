import type { Logger } from '../../infra/logger';

/**
 * Progress goes to stderr as plain lines: stdout is kept for the results table and the final JSON
 * line, so `npm run -s bench -- api | tail -1` is machine-readable.
 */
export function benchLogger(name: string): Logger {
  const write = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    process.stderr.write(`[${name}]${level === 'info' ? '' : ` ${level}:`} ${msg}${extra}\n`);
  };
  return { debug: () => undefined, info: write('info'), warn: write('warn'), error: write('error') };
}
