#!/usr/bin/env node
/**
 * `restaurant-partner-fake`: an alias of `restaurant-partner fake` (the standalone fake service).
 * @module
 */
import { run } from '../cli/fake.js';

run(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(
    `restaurant-partner-fake: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
