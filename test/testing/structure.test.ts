/**
 * The fake's structure holds what it promises: no import cycles, nothing marked `@internal` on
 * public names, and the `/testing` entry loading neither `node:http` nor `msw` at import.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const source = join(root, 'src');

function files(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of every source file (type-only ones included: a cycle of types is a cycle of meaning). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(source)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/g)].map((match) =>
      resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')),
    );
    graph.set(file, targets);
  }
  return graph;
}

function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe("the fake's structure", () => {
  it('has no import cycles in src/testing', () => {
    const graph = new Map([...importGraph()].filter(([file]) => file.startsWith(join(source, 'testing'))));
    const cycle = findCycle(graph);
    expect(cycle?.map((file) => relative(source, file))).toBeUndefined();
  });

  it('the backend imports neither face nor any adapter; the faces import no adapter', () => {
    const graph = importGraph();
    const inside = (file: string, folder: string) =>
      relative(join(source, 'testing', folder), file).startsWith('..') === false;
    for (const [file, targets] of graph) {
      if (inside(file, 'backend'))
        expect(
          targets.filter((target) => /testing\/(api|control|adapters)\//.test(target)),
          relative(source, file),
        ).toEqual([]);
      if (inside(file, 'api') || inside(file, 'control'))
        expect(
          targets.filter((target) => /testing\/adapters\//.test(target)),
          relative(source, file),
        ).toEqual([]);
    }
  });

  it('marks nothing @internal in src/testing (public classes carry no hidden members)', () => {
    const marked = files(join(source, 'testing')).filter((file) =>
      readFileSync(file, 'utf8').includes('@internal'),
    );
    expect(marked.map((file) => relative(source, file))).toEqual([]);
  });

  it('/testing loads neither node:http nor msw at import, and clientOptions() works with msw not installed', () => {
    const output = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'test/testing/support/import-probe.mjs')],
      { cwd: root, encoding: 'utf8' },
    );
    const probe = JSON.parse(output.trim().split('\n').pop()!);
    expect(
      probe.atImport.filter((specifier: string) => /^(node:)?(http|https|net)$|^msw/.test(specifier)),
    ).toEqual([]);
    expect(probe.restaurants).toBe(3);
    expect(probe.handlersError).toMatch(/needs msw.*npm install --save-dev msw/);
  });
});
