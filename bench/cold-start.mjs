/**
 * Cold start: a fresh process imports the package and builds its first client, timed inside the
 * process (performance.now() around `await import(...)` and the constructor), so node's own boot
 * is left out. Ours and openai-node's take turns, 7 processes each after one warm-up pair (which
 * fills the file cache); medians.
 */
import { spawnSync } from 'node:child_process';

const PROGRAMS = {
  ours: (distIndex) => `
    const started = performance.now();
    const { PartnerClient } = await import(${JSON.stringify(distIndex)});
    new PartnerClient({ baseUrl: 'https://api.example.com', partnerId: '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d10', apiToken: 'not-a-secret' });
    process.stdout.write(String(performance.now() - started));`,
  openai: () => `
    const started = performance.now();
    const { default: OpenAI } = await import('openai');
    new OpenAI({ apiKey: 'not-a-secret' });
    process.stdout.write(String(performance.now() - started));`,
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function timeOnce(root, program) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', program], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`cold start failed: ${result.stderr}`);
  return Number(result.stdout);
}

/** Records `cold_start_ms`, `cold_start_openai_ms` and their ratio (goal <= 0.5). */
export function benchColdStart({ root, distIndex, record, runs = 7 }) {
  process.stderr.write(
    'cold start: import + first client in a fresh process, ours and openai-node in turns\n',
  );
  const programs = { ours: PROGRAMS.ours(distIndex), openai: PROGRAMS.openai() };
  const times = { ours: [], openai: [] };
  for (let round = -1; round < runs; round += 1) {
    const order = round % 2 === 0 ? ['ours', 'openai'] : ['openai', 'ours'];
    for (const name of order) {
      const elapsed = timeOnce(root, programs[name]);
      if (round >= 0) times[name].push(elapsed);
    }
  }
  const ours = median(times.ours);
  const openai = median(times.openai);
  record('cold_start_ms', ours, 'ms, import + first new PartnerClient (median of 7 fresh processes)');
  record('cold_start_openai_ms', openai, 'ms, import + first new OpenAI() (same run, in turns)');
  record('cold_start_ratio', ours / openai, 'ours over openai-node', '<= 0.5');
}
