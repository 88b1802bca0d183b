/**
 * How a long-running command ends with whoever started it: a pid file that names the process to
 * stop (written once ready, removed on exit), and a watch on the processes that started it. `npx`
 * runs the bin under npm and a shell: killing the pid npm printed (even with SIGKILL) leaves the
 * shell behind, so the watch follows every ancestor recorded at start, not only the parent.
 * @module
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/** How often the ancestors are checked: a stopped parent is noticed within this. */
const WATCH_MS = 250;

/** The parent pid of `pid` from /proc (Linux); undefined where there is no /proc. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may hold spaces: fields start after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const parent = Number(fields[1]);
    return Number.isInteger(parent) ? parent : undefined;
  } catch {
    return undefined;
  }
}

/** This process's ancestors, nearest first, up to (not including) pid 1. */
function ancestors(): number[] {
  const found: number[] = [];
  let pid = process.ppid;
  while (pid > 1 && found.length < 64) {
    found.push(pid);
    const next = parentOf(pid);
    if (next === undefined) break;
    pid = next;
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Calls `onGone` once when the process that started this one goes: any ancestor recorded now
 * exits, this process is adopted by another parent, or an IPC channel to the parent closes.
 * Returns a function that stops watching. The timer never keeps the process alive by itself.
 */
export function watchParent(onGone: (why: string) => void): () => void {
  const parent = process.ppid;
  const watched = ancestors();
  let done = false;
  const gone = (why: string) => {
    if (done) return;
    done = true;
    stop();
    onGone(why);
  };
  const timer = setInterval(() => {
    if (process.ppid !== parent) return gone(`its parent (pid ${parent}) exited`);
    const dead = watched.find((pid) => !alive(pid));
    if (dead !== undefined) gone(`the process that started it (pid ${dead}) exited`);
  }, WATCH_MS);
  timer.unref();
  const onDisconnect = () => gone('the IPC channel to its parent closed');
  if (process.channel) process.once('disconnect', onDisconnect);
  function stop() {
    clearInterval(timer);
    process.off('disconnect', onDisconnect);
  }
  return stop;
}

/**
 * Writes this process's pid to `path` and removes the file when the process exits (only if it
 * still names this process: a later run may have taken it over).
 */
export function writePidFile(path: string): void {
  writeFileSync(path, `${process.pid}\n`);
  process.once('exit', () => {
    try {
      if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
    } catch {
      // Already gone: nothing to remove.
    }
  });
}
