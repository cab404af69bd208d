import type { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Level, Logger as Pino } from 'pino';
import type { LogFormat, LogLevel } from '../../config/app.config';
import { redactText, redactValue } from './redact';

/** LOG_LEVEL to pino's level: Nest's `log` is info and its `verbose` (below debug) is trace. */
const PINO_LEVEL: Record<LogLevel, Level | 'silent'> = {
  trace: 'trace',
  verbose: 'trace',
  debug: 'debug',
  info: 'info',
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
  silent: 'silent',
};

export interface LoggingOptions {
  logLevel: LogLevel;
}

/** The fields of one access-log line. */
export interface AccessLine {
  request_id: string;
  user_id: string | undefined;
  method: string;
  /** The matched route template (`/api/v1.0/spaces/:slug`), never the raw URL with its ids and query. */
  route: string;
  status: number;
  duration_ms: number;
}

/**
 * Where the lines of `format` go: JSON lines straight to stdout, or pino-pretty's single lines,
 * loaded only then (a production process writes JSON and never loads it).
 */
export async function logDestination(format: LogFormat): Promise<DestinationStream> {
  if (format === 'json') return pino.destination({ dest: 1, sync: true });
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    sync: true,
    colorize: process.stdout.isTTY === true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The access line's method, route and status are already in its message.
    ignore: 'pid,hostname,context,method,route,status',
    messageFormat: '{if context}[{context}] {end}{msg}',
  });
}

/** Nest appends the logger's context as the last argument; an error's stack (or undefined) comes first. */
function split(params: unknown[]): { context: string | undefined; rest: unknown[] } {
  if (params.length > 0 && typeof params[params.length - 1] === 'string') {
    return { context: params[params.length - 1] as string, rest: params.slice(0, -1) };
  }
  return { context: undefined, rest: params };
}

/**
 * Every log line of the process, Nest's own and each `new Logger(context)`'s,
 * written by pino: JSON lines with `time`, `level` (a name), `msg` and
 * `context`, or pretty single lines for a terminal. Messages and logged
 * objects pass through the redactor, so that tokens, passwords and
 * connection-string credentials never reach the output.
 */
export class AppLogger implements LoggerService {
  readonly pino: Pino;

  constructor(options: LoggingOptions, destination: DestinationStream) {
    this.pino = pino(
      {
        level: PINO_LEVEL[options.logLevel],
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      destination,
    );
  }

  trace(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /**
   * A writer of access-log lines at info, or null when that level is off.
   * The line is built from fixed fields only (no headers, no URL), so it
   * skips the redactor: one small object per request.
   */
  accessLog(): ((line: AccessLine) => void) | null {
    if (!this.pino.isLevelEnabled('info')) return null;
    const http = this.pino.child({ context: 'HTTP' });
    return (line) => http.info(line, `${line.method} ${line.route} ${line.status}`);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const { context, rest } = split(params);
    const fields: Record<string, unknown> = context ? { context } : {};
    for (const extra of rest) {
      if (typeof extra === 'string') fields.stack = redactText(extra);
      else if (extra instanceof Error) fields.err = redactValue(extra);
      else if (extra !== undefined) fields.details = redactValue(extra);
    }
    if (message instanceof Error) {
      fields.err = redactValue(message);
      this.pino[level](fields, redactText(message.message));
    } else if (message !== null && typeof message === 'object') {
      const { msg, ...object } = redactValue(message) as Record<string, unknown>;
      this.pino[level]({ ...object, ...fields }, typeof msg === 'string' ? msg : '');
    } else {
      this.pino[level](fields, redactText(String(message)));
    }
  }
}
