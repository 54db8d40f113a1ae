const levels = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof levels;
export type Logger = Record<LogLevel, (msg: string, fields?: Record<string, unknown>) => void>;

// Field names whose values never reach a log line, whatever the caller passes.
const SECRET_FIELDS = /^(authorization|key|api_key|secret|password|token)$/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k, SECRET_FIELDS.test(k) ? '[redacted]' : v]),
  );
}

/** One JSON object per line on stdout (stderr for warn and error). */
export function createLogger(name: string, minLevel: LogLevel = 'info'): Logger {
  const make =
    (level: LogLevel) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (levels[level] < levels[minLevel]) return;
      const line = JSON.stringify({ time: new Date().toISOString(), level, name, msg, ...redact(fields) });
      (level === 'warn' || level === 'error' ? process.stderr : process.stdout).write(line + '\n');
    };
  return { debug: make('debug'), info: make('info'), warn: make('warn'), error: make('error') };
}
