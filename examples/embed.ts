/**
 * Embeds the service's core in another program, in memory: seeds what it needs through use
 * cases, books an airport transfer (quote, then order) and makes a wallet payment as a user
 * holding a delegated token, then prints one JSON object on stdout.
 *
 *   npm run example:embed
 */
import { createCore, createMemoryPorts } from 'partner-booking-wallet';

const ports = createMemoryPorts();
await ports.start();
try {
  const core = createCore(ports);

  // Booking: the demo catalogue, a channel, an agent and its key.
  await core.catalogue.seed.execute();
  await core.admin.createChannel.execute({ code: 'EMBED', name: 'Embedding example', currency: 'THB' });
  const agent = await core.admin.createAgent.execute({ name: 'Example travel desk', channelCode: 'EMBED' });
  const { apiKey } = await core.admin.issueApiKey.execute({ agentId: agent.id });
  const principal = await core.identity.authenticateAgent.execute(apiKey);

  const quote = await core.booking.quoteTransfer.execute(principal, {
    fromLocationId: 'loc_bkk',
    toLocationId: 'loc_bkk_silom',
    pickupAt: new Date(Date.now() + 2 * 86_400_000),
    passengers: 2,
  });
  const order = await core.booking.placeOrder.execute(principal, {
    quoteId: quote.id,
    contact: { name: 'Ada Traveller', email: 'ada@example.com' },
  });

  // Wallet: a tenant, its machine credential, a user and a top-up.
  const tenant = await core.admin.createTenant.execute({ name: 'Example wallet' });
  const machine = await core.identity.verifyWalletToken.execute(
    `Bearer ${(await core.identity.issueMachineToken.execute({ clientId: tenant.clientId, clientSecret: tenant.clientSecret })).accessToken}`,
  );
  if (machine.kind !== 'machine') throw new Error('expected a machine token');
  const user = await core.identity.createWalletUser.execute(machine, { externalUserRef: 'example-user-1' });
  await core.wallet.topUp.execute({
    principal: machine,
    userId: user.id,
    amount: 50_000,
    reference: 'example-top-up',
  });

  // The tenant delegates to its user; the user pays with that token.
  const delegated = await core.identity.issueDelegatedToken.execute(machine, 'example-user-1');
  const payer = await core.identity.verifyWalletToken.execute(`Bearer ${delegated.accessToken}`);
  if (payer.kind !== 'user') throw new Error('expected a user token');
  const payment = await core.wallet.makePayment.execute({
    principal: payer,
    amount: 12_500,
    reference: `order ${order.id}`,
    description: 'Airport transfer',
  });
  const balance = await core.wallet.getMyBalance.execute(payer);

  process.stdout.write(
    `${JSON.stringify({
      order: { id: order.id, status: order.status },
      payment: { id: payment.id, type: payment.type, amount: payment.amount },
      balance,
    })}\n`,
  );
} finally {
  await ports.stop();
}
