/**
 * The client's log level: which of the four levels reach the partner's logger. Chosen by the
 * `logLevel` option, else by the `RESTAURANT_PARTNER_LOG` environment variable (a switch for an
 * operator who cannot change code, like `OPENAI_LOG`), else `warn`. Every line passes through the
 * credential redactor before the logger sees it, whatever a server echoed into it.
 * @module
 */
import type { Logger } from '../logger.js';
import { chooseSetting } from './environment.js';

/** From most to least verbose; `off` drops everything. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/** The environment variable that sets the log level when the `logLevel` option is not given. */
export const LOG_LEVEL_ENVIRONMENT_VARIABLE = 'RESTAURANT_PARTNER_LOG';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, off: 100 };

/** The level in force: the `logLevel` option, else `RESTAURANT_PARTNER_LOG`, else `warn`. */
export function resolveLogLevel(option: unknown, warn: (message: string) => void): LogLevel {
  return chooseSetting({
    option,
    field: 'logLevel',
    allowed: Object.keys(RANK) as LogLevel[],
    variable: LOG_LEVEL_ENVIRONMENT_VARIABLE,
    fallback: 'warn',
    warn,
  });
}

type LogMethod = (message: string, context?: Record<string, unknown>) => void;
const drop: LogMethod = () => undefined;

/**
 * `logger` filtered to `level`, with `redact` applied to each message and context; an exception
 * thrown by the logger is swallowed. Below the level,
 * `debug` and `info` are absent, so that a call site's `logger.debug?.(...)` does not even build its
 * line (the common case: debug off), and `warn` and `error` do nothing. A method the logger lacks
 * (`debug` and `info` are optional) is absent too.
 */
export function createLevelledLogger(logger: Logger, level: LogLevel, redact: <T>(value: T) => T): Logger {
  const method = (name: keyof Logger): LogMethod | undefined => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called as logger's own (write.call(logger, ...))
    const write = logger[name];
    if (!write || RANK[name] < RANK[level]) return undefined;
    return (message, context) => {
      const safeMessage = redact(message);
      try {
        if (context === undefined) write.call(logger, safeMessage);
        else write.call(logger, safeMessage, redact(context));
      } catch {
        // A logger that throws must not fail the call it was told about (a booking made, say).
      }
    };
  };
  const levelled: Logger = { warn: method('warn') ?? drop, error: method('error') ?? drop };
  const debug = method('debug');
  const info = method('info');
  if (debug) levelled.debug = debug;
  if (info) levelled.info = info;
  return levelled;
}
