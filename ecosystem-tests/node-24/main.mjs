// Node.js 24, from the `node` npm package this project installs.
import { reportScenario } from '../scenario.mjs';

await reportScenario(`Node.js ${process.version}`, JSON.parse(process.argv[2]));
