/**
 * The webhooks entry is read in one sitting: at most 30 names, listed by hand (no `export *`),
 * counted as the TypeScript compiler sees the entry (the same names its built `.d.ts` exports).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../../src/webhooks/index.ts', import.meta.url));

describe('the webhooks entry', () => {
  it('exports at most 30 names, listed by hand, one per thing', () => {
    expect(readFileSync(entry, 'utf8')).not.toMatch(/export\s+\*/);
    const program = ts.createProgram([entry], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      // The names are the entry's own export lists: nothing behind them needs reading.
      noResolve: true,
      types: [],
      noLib: true,
    });
    const checker = program.getTypeChecker();
    const names = checker
      .getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!)
      .map((symbol) => symbol.name);
    expect(names).toContain('createWebhookReceiver');
    expect(names.length, names.join(', ')).toBeLessThanOrEqual(30);
    // The event names have one name, in the core (`WebhookEventType`); guards beyond the one generic
    // guard would double each error class.
    expect(names).not.toContain('WebhookEventName');
    expect(names.filter((name) => name.startsWith('is'))).toEqual(['isWebhookError']);
  });
});
