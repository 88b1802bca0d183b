/**
 * The fake's structure holds what it promises: no import cycles, nothing marked `@internal` on
 * public names. That the `/testing` entry loads neither `node:http` nor `msw` at import is
 * testing-import.test.ts (a child process: the slow lane).
 */
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
});
