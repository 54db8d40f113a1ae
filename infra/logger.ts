import pino from 'pino';
import { redactFields, scrubText } from './redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;
export type Logger = Record<LogLevel, (msg: string, fields?: LogFields) => void> & {
  /** A logger whose every line also carries `bindings` (a request id, a workflow id). */
  child: (bindings: LogFields) => Logger;
};
/** Where lines go instead of stdout and stderr (tests capture them). */
export type LogSink = { write: (line: string) => void };

// pino writes these itself; a field of the same name would make a second key in the line.
const RESERVED = new Set(['level', 'time', 'name', 'msg']);

function fieldsOf(fields: LogFields): LogFields {
  const out = redactFields(fields);
  for (const k of Object.keys(out))
    if (RESERVED.has(k)) {
      out[`field_${k}`] = out[k];
      delete out[k];
    }
  return out;
}

/**
 * `make` runs at the first line written: the API makes a child per request, and most requests log
 * nothing at the configured level, so they never pay for one.
 */
function wrap(make: () => pino.Logger, enabled: (level: LogLevel) => boolean): Logger {
  let made: pino.Logger | undefined;
  const p = () => (made ??= make());
  const at =
    (level: LogLevel) =>
    (msg: string, fields?: LogFields): void => {
      // Checked first so a disabled level costs no redaction.
      if (!enabled(level)) return;
      if (fields) p()[level](fieldsOf(fields), scrubText(msg));
      else p()[level](scrubText(msg));
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (bindings) => wrap(() => p().child(fieldsOf(bindings)), enabled),
  };
}

/**
 * One JSON object per line: `level` (a label), `time` (ISO), `name`, the fields, `msg`. debug and
 * info go to stdout, warn and error to stderr, as before pino. Keys, secrets and contact details are
 * redacted by field name at any depth, and by shape in text (infra/redact.ts).
 */
export function createLogger(name: string, minLevel: LogLevel = 'info', sink?: LogSink): Logger {
  const destination =
    sink ??
    pino.multistream(
      [
        { level: 'debug', stream: process.stdout },
        { level: 'warn', stream: process.stderr },
      ],
      // Each line to the highest stream its level reaches only: a warning is not also on stdout.
      { dedupe: true },
    );
  const root = pino(
    {
      level: minLevel,
      base: { name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return wrap(
    () => root,
    (level) => root.isLevelEnabled(level),
  );
}
