import { expect } from 'chai';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, unique, type TestAgent } from '../support/builders.js';
import { dateAhead } from '../support/booking-builders.js';
import { expectResponseMatchesSpec } from '../support/openapi.js';
import {
  basicAuth,
  bearer,
  buildPasswordUser,
  buildTenant,
  formPost,
  login,
  machineToken,
  testAddress,
} from '../support/wallet-builders.js';

/**
 * Walks both surfaces as an integrator would and checks every real answer, success and error,
 * against the published description of its operation (schema, status, reasons, content type).
 */
describe('real responses match the published interface', () => {
  let app: TestApp;
  let agent: TestAgent;
  before(async () => {
    app = await startTestApp({ env: { TRUST_PROXY: '1' } });
    await app.service.core.catalogue.seed.execute();
    agent = await buildAgent(app.service, { markupBps: 500, discountBps: 100 });
  });
  after(() => app.stop());

  const key = (extra: Record<string, string> = {}) => ({ 'X-API-KEY': agent.apiKey, ...extra });

  it('when a partner lists trips, quotes, books, reads, lists and cancels, then every answer is as documented', async () => {
    const date = dateAhead(20);
    const trips = await expectResponseMatchesSpec<{ data: Array<{ id: string }> }>(
      'listBusTrips',
      await app.request(`/api/v1/express-bus/trips?fromCityId=cty_bangkok&toCityId=cty_pattaya&date=${date}`, { headers: key() }),
    );
    expect(trips.data.length).to.be.greaterThan(0);
    await expectResponseMatchesSpec(
      'listBusTrips',
      await app.request('/api/v1/express-bus/trips?fromCityId=cty_bangkok', { headers: key() }),
    );

    const busQuote = await expectResponseMatchesSpec<{ id: string }>(
      'quoteBusTrip',
      await app.request('/api/v1/express-bus/quotes', json('POST', { tripId: trips.data[0]!.id, passengers: 2 }, key())),
    );
    await expectResponseMatchesSpec(
      'quoteBusTrip',
      await app.request('/api/v1/express-bus/quotes', json('POST', { tripId: 'trp_nowhere_x_202701010000', passengers: 1 }, key())),
    );
    const pickupAt = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const transfer = await expectResponseMatchesSpec<{ id: string }>(
      'quoteAirportTransfer',
      await app.request(
        '/api/v1/airport-transfer/quotes',
        json('POST', { fromLocationId: 'loc_bkk', toLocationId: 'loc_bkk_silom', pickupAt, passengers: 2 }, key()),
      ),
    );
    await expectResponseMatchesSpec(
      'quoteAirportTransfer',
      await app.request('/api/v1/airport-transfer/quotes', json('POST', { passengers: 0 }, key())),
    );
    await expectResponseMatchesSpec('getQuote', await app.request(`/api/v1/quotes/${transfer.id}`, { headers: key() }));
    await expectResponseMatchesSpec('getQuote', await app.request(`/api/v1/quotes/qte_${unique()}`, { headers: key() }));

    const contact = { name: 'Malee S.', email: 'malee@example.com' };
    const order = await expectResponseMatchesSpec<{ id: string }>(
      'placeOrder',
      await app.request(
        '/api/v1/orders',
        json(
          'POST',
          { quoteId: busQuote.id, contact, passengers: [{ name: 'A' }, { name: 'B' }] },
          key({ 'Idempotency-Key': `k-${unique()}` }),
        ),
      ),
    );
    await expectResponseMatchesSpec(
      'placeOrder',
      await app.request('/api/v1/orders', json('POST', { quoteId: busQuote.id, contact }, key())),
    );
    await expectResponseMatchesSpec('getOrder', await app.request(`/api/v1/orders/${order.id}`, { headers: key() }));
    await expectResponseMatchesSpec('listOrders', await app.request('/api/v1/orders?limit=1', { headers: key() }));
    await expectResponseMatchesSpec(
      'cancelOrder',
      await app.request(`/api/v1/orders/${order.id}/cancel`, { method: 'POST', headers: key() }),
    );
    await expectResponseMatchesSpec(
      'cancelOrder',
      await app.request(`/api/v1/orders/${order.id}/cancel`, { method: 'POST', headers: key() }),
    );
    await expectResponseMatchesSpec('getOrder', await app.request(`/api/v1/orders/ord_${unique()}`, { headers: key() }));
  });

  it('when a tenant gets tokens, manages users, moves money and reads transactions, then every answer is as documented', async () => {
    const tenant = await buildTenant(app.service);
    await expectResponseMatchesSpec(
      'issueMachineToken',
      await app.request(
        '/oauth/token',
        formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, tenant.clientSecret) }),
      ),
    );
    await expectResponseMatchesSpec(
      'issueMachineToken',
      await app.request(
        '/oauth/token',
        formPost({ grant_type: 'client_credentials' }, { authorization: basicAuth(tenant.clientId, 'wrong') }),
      ),
    );
    const machine = await machineToken(app, tenant);
    const m = (extra: Record<string, string> = {}) => ({ ...bearer(machine), ...extra });

    const delegated = await expectResponseMatchesSpec<{ access_token: string }>(
      'issueDelegatedToken',
      await app.request('/auth/delegated-token', json('POST', { externalUserRef: `ref-${unique()}` }, m())),
    );
    const user = delegated.access_token;
    const me = await expectResponseMatchesSpec<{ id: string }>('getMe', await app.request('/me', { headers: bearer(user) }));
    await expectResponseMatchesSpec('getMe', await app.request('/me', { headers: m() }));

    const other = await expectResponseMatchesSpec<{ id: string }>(
      'createWalletUser',
      await app.request(
        '/users',
        json('POST', { externalUserRef: `ref-${unique()}`, email: `u-${unique()}@example.com`, password: 'a long enough password' }, m()),
      ),
    );
    await expectResponseMatchesSpec('listWalletUsers', await app.request('/users?limit=2', { headers: m() }));
    await expectResponseMatchesSpec('getWalletUser', await app.request(`/users/${me.id}`, { headers: m() }));
    await expectResponseMatchesSpec('getWalletUser', await app.request(`/users/usr_${unique()}`, { headers: m() }));
    await expectResponseMatchesSpec('listWalletUsers', await app.request('/users', { headers: bearer(user) }));

    const money = (amount: number) => ({ amount, currency: 'THB' }); // the tenant's default currency
    await expectResponseMatchesSpec(
      'topUpWalletUser',
      await app.request(
        `/users/${me.id}/top-ups`,
        json('POST', { amount: money(10_000), reference: 'dep-1' }, m({ 'Idempotency-Key': `t-${unique()}` })),
      ),
    );
    const payment = await expectResponseMatchesSpec<{ id: string }>(
      'makePayment',
      await app.request(
        '/me/payments',
        json('POST', { amount: money(4_000), reference: 'order-1' }, { ...bearer(user), 'Idempotency-Key': `p-${unique()}` }),
      ),
    );
    await expectResponseMatchesSpec(
      'makePayment',
      await app.request('/me/payments', json('POST', { amount: money(1_000_000), reference: 'too-much' }, bearer(user))),
    );
    await expectResponseMatchesSpec(
      'makeTransfer',
      await app.request('/me/transfers', json('POST', { toUserId: other.id, amount: money(1_000) }, bearer(user))),
    );
    await expectResponseMatchesSpec(
      'refundPayment',
      await app.request(`/transactions/${payment.id}/refunds`, json('POST', { amount: money(500) }, m())),
    );
    await expectResponseMatchesSpec(
      'refundPayment',
      await app.request(`/transactions/${payment.id}/refunds`, json('POST', { amount: money(9_000) }, m())),
    );
    await expectResponseMatchesSpec('getMyBalance', await app.request('/me/balance', { headers: bearer(user) }));
    await expectResponseMatchesSpec('listTransactions', await app.request('/transactions?limit=2', { headers: bearer(user) }));
    await expectResponseMatchesSpec('listTransactions', await app.request(`/transactions?userId=${me.id}`, { headers: m() }));
    await expectResponseMatchesSpec('summarizeTransactions', await app.request('/transactions/summary', { headers: m() }));
    await expectResponseMatchesSpec('getTransaction', await app.request(`/transactions/${payment.id}`, { headers: bearer(user) }));
    await expectResponseMatchesSpec('getTransaction', await app.request(`/transactions/txn_${unique()}`, { headers: m() }));

    const holder = await buildPasswordUser(app, machine);
    await expectResponseMatchesSpec(
      'logIn',
      await login(app, { clientId: tenant.clientId, email: holder.email, password: holder.password }, testAddress()),
    );
    await expectResponseMatchesSpec(
      'logIn',
      await login(app, { clientId: tenant.clientId, email: holder.email, password: 'wrong password' }, testAddress()),
    );
    await expectResponseMatchesSpec('getJwks', await app.request('/.well-known/jwks.json'));
  });
});
