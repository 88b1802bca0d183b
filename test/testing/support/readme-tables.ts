/**
 * The tables of docs/fake.md, rendered from the code that decides them. The docs test
 * compares them; `npx tsx test/testing/support/readme-tables.ts --write` rewrites them in place.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONTROL_ROUTES } from '../../../src/testing/control/routes.js';
import { DIALECT_DESCRIPTIONS, DIALECT_VALUES } from '../../../src/testing/backend/dialects.js';
import { OPERATIONS } from '../../../src/testing/backend/faults.js';
import {
  TRANSITIONS,
  type ReservationAction,
  type ReservationState,
} from '../../../src/testing/backend/transitions.js';
import { FAKE_LIMITS } from '../../../src/testing/limits.js';

export const FAKE_DOCS = fileURLToPath(new URL('../../../docs/fake.md', import.meta.url));

const cell = (text: string) => text.replaceAll('|', '\\|');

export function controlRoutesTable(): string {
  const rows = CONTROL_ROUTES.map(
    (route) =>
      `| \`${route.method} ${route.path}\` | ${route.body ? `\`${cell(route.body)}\`` : ''} | ${cell(route.does)} |`,
  );
  return ['| route | body | does |', '|---|---|---|', ...rows].join('\n');
}

export function dialectsTable(): string {
  const rows = Object.entries(DIALECT_VALUES).map(([key, values]) => {
    const [first, ...others] = values as readonly unknown[];
    return `| \`${key}\` | \`${String(first)}\` | ${others.map((value) => `\`${String(value)}\``).join(', ')} | ${cell(DIALECT_DESCRIPTIONS[key as keyof typeof DIALECT_DESCRIPTIONS])} |`;
  });
  return ['| key | default | other values | decides |', '|---|---|---|---|', ...rows].join('\n');
}

export function limitsTable(): string {
  return [
    '| applies to | limit | from |',
    '|---|---|---|',
    ...FAKE_LIMITS.map((limit) => `| ${cell(limit.applies)} | ${cell(limit.limit)} | ${limit.from} |`),
  ].join('\n');
}

export function transitionsTable(): string {
  const actions = Object.keys(TRANSITIONS) as ReservationAction[];
  const states: ReservationState[] = ['created', 'confirmed', 'cancelled', 'arrived', 'no_show'];
  const rows = states.map((state) => {
    const cells = actions.map((action) => {
      const row = TRANSITIONS[action][state];
      if (!row) return '409';
      return `${row.to === state ? 'stays' : `-> ${row.to}`}${row.event ? `, ${row.event}` : ''}`;
    });
    return `| ${state} | ${cells.join(' | ')} |`;
  });
  return [
    `| state \\ action | ${actions.join(' | ')} |`,
    `|---|${actions.map(() => '---').join('|')}|`,
    ...rows,
  ].join('\n');
}

export function faultOperationsLine(): string {
  return OPERATIONS.map((operation) => `\`${operation}\``).join(', ');
}

export const TABLES: Record<string, () => string> = {
  'fake-control-routes': controlRoutesTable,
  'fake-dialects': dialectsTable,
  'fake-limits': limitsTable,
  'fake-transitions': transitionsTable,
  'fake-fault-operations': faultOperationsLine,
};

const block = (name: string) =>
  new RegExp(`(<!-- generated: ${name} -->\\n)([\\s\\S]*?)\\n?(<!-- end: ${name} -->)`);

/** The text between a docs marker pair, or undefined when the markers are missing. */
export function readmeBlock(readme: string, name: string): string | undefined {
  return block(name).exec(readme)?.[2];
}

if (process.argv.includes('--write')) {
  let readme = readFileSync(FAKE_DOCS, 'utf8');
  for (const [name, render] of Object.entries(TABLES)) {
    if (!block(name).test(readme))
      throw new Error(`docs/fake.md has no <!-- generated: ${name} --> ... <!-- end: ${name} --> block`);
    readme = readme.replace(
      block(name),
      (_all, start: string, _old: string, end: string) => `${start}${render()}\n${end}`,
    );
  }
  writeFileSync(FAKE_DOCS, readme);
  console.log('docs/fake.md tables rewritten from the code');
}
