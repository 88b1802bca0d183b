// Bun, from the `bun` npm package (its binary ships in @oven/bun-linux-x64 and siblings).
import { reportScenario } from '../scenario.mjs';

await reportScenario(`Bun ${Bun.version}`, JSON.parse(Bun.argv[2]));
