import { expect } from 'chai';
import { createCore, createMemoryPorts, createPostgresPorts, type PortSet } from 'partner-booking-wallet';
import { buildSchedule, dateAhead, tripIdOf, unique } from 'partner-booking-wallet/testing';
import { dropTestSchedules } from '../support/booking-builders.js';
import { testDatabase } from '../support/database.js';

/**
 * Each port set runs the core as one consistent whole: seats an order takes are gone from the
 * trip listing, and a signing-key rotation changes what the issuer signs with and what the
 * verifier accepts together.
 */
const url = process.env.DATABASE_URL;
const sets: ReadonlyArray<readonly [string, () => Promise<PortSet>]> = [
  ['memory', async () => createMemoryPorts()],
  ['test database', async () => createPostgresPorts({ database: await testDatabase() })],
  // The set opens its own pool, applies migrations and closes the pool on stop.
  ...(url === undefined ? [] : [['PostgreSQL connection string', async () => createPostgresPorts({ connectionString: url })] as const]),
];

for (const [name, make] of sets) {
  describe(`core on the ${name} port set`, () => {
    let ports: PortSet;
    before(async () => {
      ports = await make();
      await ports.start();
    });
    after(async () => {
      await ports?.stop();
      // The schedules loaded here must not change the shipped catalogue's counts for other tests.
      if (name !== 'memory') await dropTestSchedules((await testDatabase()).knex);
    });

    it('when 3 of 32 seats are ordered, then the trip shows 29 left', async () => {
      const core = createCore(ports);
      await core.catalogue.seed.execute();
      const schedule = await buildSchedule(ports.catalogue, { seatCapacity: 32 });
      const channel = `SET-${unique()}`;
      await core.admin.createChannel.execute({ code: channel, name: 'Port set', currency: 'THB' });
      const agent = await core.admin.createAgent.execute({ name: 'Port set agent', channelCode: channel });
      const { apiKey } = await core.admin.issueApiKey.execute({ agentId: agent.id });
      const who = await core.identity.authenticateAgent.execute(apiKey);
      const date = dateAhead(20);
      const tripId = tripIdOf(schedule, date);

      const quote = await core.booking.quoteBusTrip.execute(who, { tripId, passengers: 3 });
      const order = await core.booking.placeOrder.execute(who, { quoteId: quote.id, contact: { name: 'A', email: 'a@example.com' } });
      expect(order.status).to.equal('CONFIRMED');

      const trips = await core.booking.listTrips.execute(who, { fromCityId: 'cty_bangkok', toCityId: 'cty_pattaya', date });
      expect(trips.find((t) => t.id === tripId)?.seatsLeft).to.equal(29);
    });

    it('when the signing key is rotated, then tokens issued after it verify and name the new key', async () => {
      const core = createCore(ports);
      const tenant = await core.admin.createTenant.execute({ name: `Port set ${unique()}` });
      const credentials = { clientId: tenant.clientId, clientSecret: tenant.clientSecret };
      const { kid } = await core.admin.rotateSigningKey.execute();
      const { accessToken } = await core.identity.issueMachineToken.execute(credentials);
      const header = JSON.parse(Buffer.from(accessToken.split('.')[0]!, 'base64url').toString()) as { kid: string };
      expect(header.kid).to.equal(kid);
      const principal = await core.identity.verifyWalletToken.execute(`Bearer ${accessToken}`);
      expect(principal).to.deep.include({ kind: 'machine', tenantId: tenant.tenantId });
    });
  });
}
