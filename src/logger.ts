/**
 * Where the SDK writes warnings and errors: one small interface that the client and the webhook
 * receiver share, and the console loggers built on it. No logger is ever given a secret.
 * @module
 */

/** Where log lines go. The default prints warnings and errors to the console and nothing else. */
export interface Logger {
  debug?(message: string, context?: Record<string, unknown>): void;
  info?(message: string, context?: Record<string, unknown>): void;
  warn(message: string, context?: Record<string, unknown>): void;
  error(message: string, context?: Record<string, unknown>): void;
}

/** A logger writing warnings and errors to the console under `prefix`, nothing else. */
export function createConsoleLogger(prefix: string): Logger {
  return {
    warn: (message, context) => console.warn(`${prefix} ${message}`, ...(context ? [context] : [])),
    error: (message, context) => console.error(`${prefix} ${message}`, ...(context ? [context] : [])),
  };
}

/** The client's default logger: warnings and errors to the console, nothing else. */
export const consoleLogger: Logger = createConsoleLogger('[restaurant-partner-sdk]');

/** A logger that drops everything. */
export const silentLogger: Logger = { warn: () => undefined, error: () => undefined };
