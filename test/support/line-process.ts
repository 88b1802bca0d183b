/**
 * A real Node.js process of a proof (a worker script run with tsx, the SDK's source in
 * SDK_SOURCE), read line by line: `nextLine(match)` takes the first line it printed that matches,
 * waiting up to `timeoutMs` (20 s).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Starts `script` (a path) under tsx with `env` added to this process's environment. */
export function startLineProcess(script: string, env: Record<string, string>) {
  const source = fileURLToPath(new URL('../../src', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, SDK_SOURCE: source, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  let closed = false;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((waiter) => waiter());
  const reader = createInterface({ input: child.stdout });
  reader.on('line', (line) => {
    lines.push(line);
    wake();
  });
  reader.on('close', () => {
    closed = true;
    wake();
  });
  const nextLine = async (match: (line: string) => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = lines.find(match);
      if (found !== undefined) {
        lines.splice(lines.indexOf(found), 1);
        return found;
      }
      if (Date.now() > deadline || closed)
        throw new Error(`no such line from the process (${lines.join(' | ')}): ${stderr.slice(-500)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  const exited = () =>
    new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve),
    );
  return { child, nextLine, lines, exited };
}
