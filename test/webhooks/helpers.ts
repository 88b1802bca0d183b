import type { Logger as WebhookLogger } from 'restaurant-partner-sdk';

export const TOKEN = 'whk_live_4f9c2b7e1d8a6035e2c94b1f7a0d3e6c';
export const OTHER_TOKEN = 'whk_live_0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e';

export interface CapturedLine {
  level: string;
  message: string;
  details: Record<string, unknown> | undefined;
}

/** A logger that keeps every line, so tests can read what was logged (and check what was not). */
export function captureLogger(): WebhookLogger & { lines: CapturedLine[]; text(): string } {
  const lines: CapturedLine[] = [];
  const record = (level: string) => (message: string, details?: Record<string, unknown>) => {
    lines.push({ level, message, details });
  };
  return {
    lines,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    text: () =>
      lines.map((line) => `${line.level} ${line.message} ${JSON.stringify(line.details)}`).join('\n'),
  };
}
