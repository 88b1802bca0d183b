/**
 * The subcommands of the `restaurant-partner` bin, each loaded only when it runs (so `doctor`
 * never loads the fake, and `fake` never loads the client's command-line helpers).
 * A command module exports `run(args)`: it resolves when the command is done (a server keeps
 * running until its signal) and sets `process.exitCode` (0 ok, 1 a check failed or drift, 2 usage).
 * @module
 */

/** One line each, shown by `restaurant-partner --help`. */
export const COMMANDS = {
  fake: { summary: 'run the fake service as a standalone HTTP server', load: () => import('./fake.js') },
  doctor: {
    summary: 'check your setup against the service and learn its dialect (partner-dialect.json)',
    load: () => import('./doctor.js'),
  },
} satisfies Record<string, { summary: string; load: () => Promise<{ run(args: string[]): Promise<void> }> }>;

export type CommandName = keyof typeof COMMANDS;
