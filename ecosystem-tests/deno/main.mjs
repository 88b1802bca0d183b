// Deno, from the `deno` npm package (its binary ships in @deno/linux-x64-glibc and siblings). Run
// with network access to loopback only and no other permission: the package needs nothing more.
import { reportScenario } from '../scenario.mjs';

await reportScenario(`Deno ${Deno.version.deno}`, JSON.parse(Deno.args[0]));
