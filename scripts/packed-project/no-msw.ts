// A partner project without msw (an optional peer): `/testing` and `/testing/node` must type-check
// with skipLibCheck off, and the standalone fake's typed client must work.
import { PartnerClient } from 'restaurant-partner-sdk';
import {
  connectFake,
  createFakeService,
  createSandbox,
  type RemoteFake,
} from 'restaurant-partner-sdk/testing';
import { startFakeServer } from 'restaurant-partner-sdk/testing/node';

const inProcess = createFakeService({ seed: 'demo' });
const partner = inProcess.describeSeed().partners[0]!;
const local = new PartnerClient(inProcess.clientOptions(partner));
const listed = await local.restaurants.list();
inProcess.dispose();

const server = await startFakeServer({ seed: 'demo', rateLimit: false });
const fake: RemoteFake = await connectFake(server.url);
const sandbox = await createSandbox(server.url, { rateLimit: false });
const remote = new PartnerClient({ ...sandbox.clientOptions(), rateLimit: false });
const remoteList = await remote.restaurants.list();
await sandbox.delete();
await fake.clock.advance('PT1M');
await server.close();
console.log(
  `no msw installed: /testing types compile (skipLibCheck off), ${listed.items.length} restaurants in-process, ${remoteList.items.length} through createSandbox`,
);
