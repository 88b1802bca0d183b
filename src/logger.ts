/**
 * Where the SDK writes its log lines: one small interface that the client and the webhook
 * receiver share, and the console loggers built on it. No logger is ever given a secret.
 * @module
 */

/** Where log lines go. The client's `logLevel` decides which levels are written at all. */
export interface Logger {
  debug?(message: string, context?: Record<string, unknown>): void;
  info?(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
}

/**
 * A logger writing to the console under `prefix`. It writes every line it is given: the client's
 * `logLevel` (default `warn`) decides which lines that is, so by default only warnings and errors.
 */
export function createConsoleLogger(prefix: string): Logger {
  const write =
    (method: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, context?: Record<string, unknown>) =>
      console[method](`${prefix} ${message}`, ...(context ? [context] : []));
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** The client's default logger: the console, at the client's `logLevel` (warnings and errors unless changed). */
export const consoleLogger: Logger = createConsoleLogger('[restaurant-partner-sdk]');

/** A logger that drops everything. */
export const silentLogger: Logger = { warn: () => undefined, error: () => undefined };
