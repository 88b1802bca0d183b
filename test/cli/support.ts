/**
 * Runs the `restaurant-partner` bin from source as real child processes, as a partner's shell or
 * CI would: the standalone fake, one-shot commands (stdout, stderr, exit code) and long-running
 * ones read line by line. Every child is ended by `stopAll()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = ['--import', 'tsx', 'src/bin/restaurant-partner.ts'];
const children = new Set<ChildProcess>();

/** Environment without the caller's partner settings, plus `env`. */
export function cleanEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['PARTNER_BASE_URL', 'PARTNER_ID', 'PARTNER_TOKEN', 'PARTNER_WEBHOOK_TOKEN'])
    delete base[name];
  return { ...base, ...env };
}

/** A long-running command: its lines as they come. */
export interface Running {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  /** Resolves with the first line (already printed or to come) that `match` accepts. */
  line(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  exited: Promise<number | null>;
}

export function start(args: string[], env: Record<string, string | undefined> = {}): Running {
  const child = spawn(process.execPath, [...BIN, ...args], {
    cwd: root,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters) waiter();
  });
  const exited = once(child, 'exit').then(([code]) => {
    children.delete(child);
    for (const waiter of waiters) waiter();
    return code as number | null;
  });
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    line(match, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(match);
          if (found !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          } else if (child.exitCode !== null) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(
              new Error(`exited ${child.exitCode} before the line came:\n${lines.join('\n')}\n${stderr}`),
            );
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no such line within ${timeoutMs} ms:\n${lines.join('\n')}\n${stderr}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/** Runs a command to its end: its exit code and output. */
export async function run(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; stdout: string; stderr: string; lines: string[] }> {
  const running = start(args, env);
  const code = await running.exited;
  // The line reader may still hold the last lines: let it drain.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: running.lines.join('\n'), stderr: running.stderr(), lines: running.lines };
}

/** Starts the standalone fake (`restaurant-partner fake --port 0`); resolves once it listens. */
export async function startFake(args: string[] = []) {
  const running = start(['fake', '--port', '0', '--seed', 'demo', '--quiet', ...args]);
  const line = await running.line((text) => text.startsWith('{'), 30_000);
  const { url } = JSON.parse(line) as { url: string };
  return { ...running, url };
}

/** Kills every child still running. */
export function stopAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
}

/** Lines that are JSON objects, parsed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- output lines, read field by field by the tests
export function records(lines: string[]): Record<string, any>[] {
  return lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
}
