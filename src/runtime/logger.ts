import { pino } from 'pino';

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stderr. Secrets never reach the log: tokens and auth headers are redacted
 * wherever they appear in a logged object.
 */
export function createLogger(
  opts: { level?: string; name?: string; destination?: NodeJS.WritableStream } = {},
): Logger {
  return pino(
    {
      name: opts.name,
      level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['token', '*.token', 'headers.authorization', '*.headers.authorization'],
        censor: '[redacted]',
      },
      formatters: { level: (label) => ({ level: label }) },
    },
    (opts.destination ?? process.stderr) as pino.DestinationStream,
  );
}

/** A logger that drops everything, for unit tests and library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });
