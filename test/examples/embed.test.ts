import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);

describe('embedding example (examples/embed.ts, importing the package by its own name)', () => {
  it('when the example runs, then it prints one JSON object: a confirmed order, a payment and the balance left', async function () {
    this.timeout(60_000);
    // The "pbw-source" condition resolves the package to src/ so the example runs without a build;
    // CI also runs it on the compiled package (npm run example:embed).
    const { stdout } = await run(process.execPath, ['--conditions=pbw-source', '--import', 'tsx', 'examples/embed.ts'], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    const lines = stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    const out = JSON.parse(lines[0]!) as Record<string, any>;
    expect(Object.keys(out)).to.deep.equal(['order', 'payment', 'balance']);
    expect(out.order.id).to.match(/^ord_/);
    expect(out.order.status).to.equal('CONFIRMED');
    expect(out.payment.id).to.match(/^txn_/);
    expect(out.payment.type).to.equal('PAYMENT');
    expect(out.payment.amount).to.deep.equal({ amount: 12_500, currency: 'THB' });
    // Topped up 50 000, paid 12 500; nothing authorized, so nothing held.
    expect(out.balance).to.deep.equal({
      available: { amount: 37_500, currency: 'THB' },
      held: { amount: 0, currency: 'THB' },
      ledger: { amount: 37_500, currency: 'THB' },
    });
  });
});
