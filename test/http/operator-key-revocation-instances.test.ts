import { expect } from 'chai';
import { twoInstances, type TestApp } from '../support/app.js';
import { eventually, unique } from '../support/builders.js';
import { adminProcess } from '../support/cli.js';
import { databaseUrl } from '../support/database.js';
import { buildOperator, reasonOf } from '../../src/testing/fixtures.js';

/**
 * Operator keys resolve through the same change-fed cache as agent keys: a revocation made on one
 * instance, or by the admin command line, reaches the other's cache within a second.
 */
describe('operator key cache across two instances', function () {
  this.timeout(120_000);
  const apps = twoInstances();

  const outcome = (app: TestApp, key: string) => reasonOf(app.service.core.identity.authenticateOperator.execute(key));

  const issued = async () => {
    const operator = buildOperator({ code: `OPK-${unique()}` });
    await apps.a.service.core.admin.createOperator.execute(operator);
    return apps.a.service.core.admin.issueOperatorKey.execute(operator.code);
  };

  it('when an operator key is revoked on instance A, then instance B refuses it within one second', async () => {
    const { keyId, apiKey } = await issued();
    // Warm both caches.
    expect(await outcome(apps.a, apiKey)).to.equal('resolved');
    expect(await outcome(apps.b, apiKey)).to.equal('resolved');
    expect(await outcome(apps.b, apiKey)).to.equal('resolved');
    await apps.a.service.core.admin.revokeOperatorKey.execute(keyId);
    expect(await outcome(apps.a, apiKey)).to.equal('invalid-api-key');
    const ms = await eventually(async () => (await outcome(apps.b, apiKey)) === 'invalid-api-key', 1000, 'B refuses the revoked key');
    expect(ms).to.be.below(1000);
  });

  it('when an operator key is revoked by the command line, then both instances refuse it within one second', async function () {
    const url = await databaseUrl();
    // The embedded PGlite of a test run lives in this process; another process cannot open it.
    if (url === null) this.skip();
    const { keyId, apiKey } = await issued();
    expect(await outcome(apps.a, apiKey)).to.equal('resolved');
    expect(await outcome(apps.b, apiKey)).to.equal('resolved');
    const revoked = await adminProcess(url, 'operator', 'key', 'revoke', '--key', keyId, '--json');
    expect(revoked.code, revoked.stderr).to.equal(0);
    const ms = await eventually(
      async () => (await outcome(apps.a, apiKey)) === 'invalid-api-key' && (await outcome(apps.b, apiKey)) === 'invalid-api-key',
      1000,
      'both refuse the revoked key',
    );
    expect(ms).to.be.below(1000);
  });
});
