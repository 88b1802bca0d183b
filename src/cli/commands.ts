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
  listen: {
    summary: "forward webhook deliveries (the fake's, or the live service's by polling) to your receiver",
    load: () => import('./listen.js'),
  },
  trigger: {
    summary: "play the restaurant's, the customer's or time's part on the fake (confirm, cancel, ...)",
    load: () => import('./trigger.js'),
  },
  resend: { summary: "send a delivery of the fake's log again", load: () => import('./resend.js') },
  tail: {
    summary: "the fake's requests and deliveries, live, as lines or NDJSON",
    load: () => import('./tail.js'),
  },
  certify: {
    summary: 'run a battery of deliveries against your webhook receiver before launch',
    load: () => import('./certify.js'),
  },
  migrate: {
    summary: 'apply (or print) the migrations of restaurant-partner-sdk/postgres',
    load: () => import('./migrate.js'),
  },
  doctor: {
    summary: 'check your setup against the service and learn its dialect (partner-dialect.json)',
    load: () => import('./doctor.js'),
  },
} satisfies Record<string, { summary: string; load: () => Promise<{ run(args: string[]): Promise<void> }> }>;

export type CommandName = keyof typeof COMMANDS;
