// Deno, from the `deno` npm package (its binary ships in @deno/linux-x64-glibc and siblings). Run
// with network access to loopback only and no other permission: the package needs nothing more.
import { report, runScenario } from '../scenario.mjs';
import { runTestingScenario } from '../testing-scenario.mjs';
import { runChannelsScenario } from '../channels-scenario.mjs';

const config = JSON.parse(Deno.args[0]);
report(`Deno ${Deno.version.deno}`, [
  ...(await runScenario(config)),
  await runTestingScenario(),
  ...(await runChannelsScenario(config)),
]);
