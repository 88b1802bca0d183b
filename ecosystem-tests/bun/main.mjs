// Bun, from the `bun` npm package (its binary ships in @oven/bun-linux-x64 and siblings).
import { report, runScenario } from '../scenario.mjs';
import { runTestingScenario } from '../testing-scenario.mjs';
import { runChannelsScenario } from '../channels-scenario.mjs';

const config = JSON.parse(Bun.argv[2]);
report(`Bun ${Bun.version}`, [
  ...(await runScenario(config)),
  await runTestingScenario(),
  ...(await runChannelsScenario(config)),
]);
