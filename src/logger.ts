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

type Level = 'debug' | 'info' | 'warn' | 'error';

/**
 * A logger writing to the console under `prefix`, for the levels given (default: warnings and
 * errors only, as the webhook receiver's default logger does).
 */
export function createConsoleLogger(prefix: string, levels: readonly Level[] = ['warn', 'error']): Logger {
  // Debug and info lines say everything in their message (their context repeats it as fields for
  // structured loggers), so the console shows one line each; a warning's context may add to it.
  const write = (level: Level) => (message: string, context?: Record<string, unknown>) =>
    console[level](
      `${prefix} ${message}`,
      ...(context && (level === 'warn' || level === 'error') ? [context] : []),
    );
  const logger: Logger = { warn: () => undefined, error: () => undefined };
  for (const level of levels) logger[level] = write(level);
  return logger;
}

/**
 * The client's default logger: the console, all four levels. The client's `logLevel` (default
 * `warn`) decides which lines it is given, so by default only warnings and errors.
 */
export const consoleLogger: Logger = createConsoleLogger('[restaurant-partner-sdk]', [
  'debug',
  'info',
  'warn',
  'error',
]);

/** A logger that drops everything. */
export const silentLogger: Logger = { warn: () => undefined, error: () => undefined };
