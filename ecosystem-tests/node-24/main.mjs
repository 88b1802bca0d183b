// Node.js 24, from the `node` npm package this project installs.
import { report, runScenario } from '../scenario.mjs';
import { runNodeScenario } from '../node-scenario.mjs';
import { runTestingScenario } from '../testing-scenario.mjs';

const config = JSON.parse(process.argv[2]);
report(`Node.js ${process.version}`, [
  ...(await runScenario(config)),
  await runTestingScenario(),
  await runNodeScenario(),
]);
