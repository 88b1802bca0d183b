/**
 * The README is the partner's path: short enough to read in ten minutes, and true about the
 * package it describes (its dependencies, and every error class with its parent).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as core from 'restaurant-partner-sdk';
import * as redis from 'restaurant-partner-sdk/redis';
import * as testing from 'restaurant-partner-sdk/testing';
import * as webhooks from 'restaurant-partner-sdk/webhooks';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** An error class, abstract ones included. */
type ErrorClass = abstract new (...args: never[]) => Error;

/** Every exported class that is an Error, by its own name, across the entries a partner imports. */
function exportedErrorClasses(): Map<string, ErrorClass> {
  const classes = new Map<string, ErrorClass>();
  for (const entry of [core, redis, testing, webhooks] as Record<string, unknown>[]) {
    for (const value of Object.values(entry)) {
      if (typeof value === 'function' && value.prototype instanceof Error)
        classes.set(value.name, value as ErrorClass);
    }
  }
  return classes;
}

describe('README', () => {
  it('stays under 30 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(30_720);
  });

  it('names exactly the runtime dependencies package.json declares', () => {
    const sentence = /Runtime dependencies: ([^.]+)\./.exec(readme.replaceAll('\n', ' '))?.[1];
    expect(sentence, 'README has no "Runtime dependencies: ..." sentence').toBeDefined();
    const named = new Set(
      [...sentence!.matchAll(/(@?[a-z][\w./-]*)/g)]
        .map((match) => match[1]!)
        .filter((word) => word in manifest.dependencies),
    );
    expect([...named].sort()).toEqual(Object.keys(manifest.dependencies).sort());
  });

  it('names every exported error class with its parent', () => {
    const classes = exportedErrorClasses();
    expect(classes.size).toBeGreaterThan(10);
    for (const [name, value] of classes) {
      const parent = Object.getPrototypeOf(value) as ErrorClass;
      // An abstract intermediate class the entries do not export is named by its exported ancestor.
      let shown = parent;
      while (shown !== Error && !classes.has(shown.name)) shown = Object.getPrototypeOf(shown) as ErrorClass;
      expect(readme, `README's error table lacks the row of ${name}`).toContain(
        `| \`${name}\` | \`${shown.name}\` |`,
      );
    }
  });

  it('links only to files that exist', () => {
    for (const [, target] of readme.matchAll(/\]\(((?:docs|examples)[^)#]*|[A-Z]+\.md)(?:#[^)]*)?\)/g)) {
      expect(existsSync(new URL(`../../${target}`, import.meta.url)), target).toBe(true);
    }
  });
});
