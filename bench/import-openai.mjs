/**
 * import_cost_openai_ms: what importing the `openai` package costs, measured exactly as the SDK's
 * own import_cost_ms is (a fresh node importing the entry, against bare node, alternating runs,
 * medians), so partners can compare the two in one run on one machine.
 */
import { spawnSync } from 'node:child_process';

function spawnMs(args) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr}`);
  return elapsed;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Milliseconds `import('openai')` adds over bare node (median of `runs` alternating pairs). */
export function importCostOpenaiMs(runs = 25) {
  const entry = import.meta.resolve('openai');
  const importEntry = `import(${JSON.stringify(entry)}).catch((error) => { console.error(error); process.exit(1); })`;
  const bare = [];
  const withImport = [];
  for (let run = 0; run < 3; run += 1) {
    spawnMs(['-e', '']);
    spawnMs(['-e', importEntry]);
  }
  for (let run = 0; run < runs; run += 1) {
    bare.push(spawnMs(['-e', '']));
    withImport.push(spawnMs(['-e', importEntry]));
  }
  return median(withImport) - median(bare);
}
