/**
 * The client's log level: which of the four levels reach the partner's logger. Chosen by the
 * `logLevel` option, else by the `RESTAURANT_PARTNER_LOG` environment variable (a switch for an
 * operator who cannot change code, like `OPENAI_LOG`), else `warn`. Every line passes through the
 * credential redactor before the logger sees it, whatever a server echoed into it.
 * @module
 */
import { InputValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { readEnvironment } from './environment.js';

/** From most to least verbose; `off` drops everything. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/** The environment variable that sets the log level when the `logLevel` option is not given. */
export const LOG_LEVEL_ENVIRONMENT_VARIABLE = 'RESTAURANT_PARTNER_LOG';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };
const LEVELS = Object.keys(RANK) as LogLevel[];
const DEFAULT_LEVEL: LogLevel = 'warn';

const isLogLevel = (value: unknown): value is LogLevel => typeof value === 'string' && Object.hasOwn(RANK, value);

/**
 * The level in force: the option (refused naming `logLevel` when unknown), else the environment
 * variable (an unknown value there is reported through `warn` and ignored: a typo in a deployment's
 * environment must not stop the service), else `warn`.
 */
export function resolveLogLevel(option: unknown, warn: (message: string) => void): LogLevel {
  if (option !== undefined) {
    if (isLogLevel(option)) return option;
    throw new InputValidationError([
      { field: 'logLevel', path: ['logLevel'], code: 'invalid_option', message: `expected one of ${LEVELS.join(', ')}` },
    ]);
  }
  const fromEnvironment = readEnvironment(LOG_LEVEL_ENVIRONMENT_VARIABLE);
  if (fromEnvironment === undefined) return DEFAULT_LEVEL;
  const lowered = fromEnvironment.toLowerCase();
  if (isLogLevel(lowered)) return lowered;
  warn(`${LOG_LEVEL_ENVIRONMENT_VARIABLE}=${JSON.stringify(fromEnvironment.slice(0, 20))} is not a log level (expected one of ${LEVELS.join(', ')}); using ${DEFAULT_LEVEL}`);
  return DEFAULT_LEVEL;
}

type LogMethod = (message: string, context?: Record<string, unknown>) => void;
const drop: LogMethod = () => undefined;

/**
 * `logger` filtered to `level`, with `redact` applied to each message and context. Below the level,
 * `debug` and `info` are absent, so that a call site's `logger.debug?.(...)` does not even build its
 * line (the common case: debug off), and `warn` and `error` do nothing. A method the logger lacks
 * (`debug` and `info` are optional) is absent too.
 */
export function createLevelledLogger(logger: Logger, level: LogLevel, redact: <T>(value: T) => T): Logger {
  const method = (name: keyof Logger): LogMethod | undefined => {
    const write = logger[name];
    if (!write || RANK[name] < RANK[level]) return undefined;
    return (message, context) => {
      const safeMessage = redact(message);
      if (context === undefined) write.call(logger, safeMessage);
      else write.call(logger, safeMessage, redact(context));
    };
  };
  const levelled: Logger = { warn: method('warn') ?? drop, error: method('error') ?? drop };
  const debug = method('debug');
  const info = method('info');
  if (debug) levelled.debug = debug;
  if (info) levelled.info = info;
  return levelled;
}
