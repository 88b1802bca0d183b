// Node.js 22.0.0, the lowest version the package's engines field admits, from the `node` npm package.
import { report, runScenario } from '../scenario.mjs';
import { runNodeScenario } from '../node-scenario.mjs';
import { runTestingScenario } from '../testing-scenario.mjs';

const config = JSON.parse(process.argv[2]);
report(`Node.js ${process.version}`, [
  ...(await runScenario(config)),
  await runTestingScenario(),
  await runNodeScenario(),
]);
