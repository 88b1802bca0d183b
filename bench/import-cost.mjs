/**
 * Import cost: what importing an entry adds to a fresh node process, against bare node. Every
 * entry measured is imported in turn with bare node in the same loop (bare, ours, openai, bare,
 * ours, openai, ...), so a machine that slows down mid-run slows them all alike; medians.
 */
import { spawnSync } from 'node:child_process';

function spawnMs(args) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr.toString()}`);
  return elapsed;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * `entries` maps a name to a module URL. Returns `{ bareMs, costs: { name: ms over bare } }` from
 * `runs` rounds after 3 warm-up rounds.
 */
export function importCosts(entries, runs = 25) {
  const commands = Object.fromEntries(
    Object.entries(entries).map(([name, url]) => [
      name,
      ['-e', `import(${JSON.stringify(url)}).catch((error) => { console.error(error); process.exit(1); })`],
    ]),
  );
  const times = { bare: [], ...Object.fromEntries(Object.keys(entries).map((name) => [name, []])) };
  for (let round = 0; round < runs + 3; round += 1) {
    const bare = spawnMs(['-e', '']);
    if (round >= 3) times.bare.push(bare);
    for (const [name, command] of Object.entries(commands)) {
      const elapsed = spawnMs(command);
      if (round >= 3) times[name].push(elapsed);
    }
  }
  const bareMs = median(times.bare);
  return {
    bareMs,
    costs: Object.fromEntries(Object.keys(entries).map((name) => [name, median(times[name]) - bareMs])),
  };
}
