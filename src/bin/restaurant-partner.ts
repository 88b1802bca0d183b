#!/usr/bin/env node
/**
 * `restaurant-partner <command>`: one bin for the fake, the preflight and the dev loop. Never
 * prompts; exit codes 0 ok, 1 a check failed or drift found, 2 usage.
 * @module
 */
import { COMMANDS, type CommandName } from '../cli/commands.js';

const usage = `Usage: restaurant-partner <command> [options]   (restaurant-partner <command> --help for one)

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(10)}${summary}`)
  .join('\n')}

Credentials come from PARTNER_BASE_URL, PARTNER_ID and PARTNER_TOKEN.
Exit codes: 0 ok, 1 a check failed or drift found, 2 usage.`;

const [name, ...args] = process.argv.slice(2);
if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
  process.stdout.write(`${usage}\n`);
  process.exitCode = name === undefined ? 2 : 0;
} else if (!Object.hasOwn(COMMANDS, name)) {
  process.stderr.write(`restaurant-partner: unknown command "${name}"\n\n${usage}\n`);
  process.exitCode = 2;
} else {
  COMMANDS[name as CommandName]
    .load()
    .then((command) => command.run(args))
    .catch((error: unknown) => {
      process.stderr.write(
        `restaurant-partner ${name}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exitCode = 1;
    });
}
