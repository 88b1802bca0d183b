// A second Worker: the `/testing` entry in-process (the fake behind clientOptions), bundled on its
// own so that a /testing that cannot run on Workers fails its own check, not the core's.
import { runTestingScenario } from '../testing-scenario.mjs';

export default {
  async fetch() {
    return Response.json({ results: [await runTestingScenario()] });
  },
};
