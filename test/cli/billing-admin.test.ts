import { expect } from 'chai';
import { runAdmin } from '../../src/adapters/cli/admin.js';
import { ADMIN_COMMANDS, adminUseCases } from '../../src/bootstrap/admin-commands.js';
import { json, startTestApp, type TestApp } from '../support/app.js';
import { buildAgent, type TestAgent } from '../support/builders.js';

type Body = Record<string, any>;

/** The agents' accounts from the admin command line (CONTRACT §6.4), on the test database. */
describe('billing admin commands', () => {
  let app: TestApp;
  let agent: TestAgent;
  const admin = (...args: string[]) => runAdmin([...args, '--json'], ADMIN_COMMANDS, async () => adminUseCases(app.service));
  const parsed = (out: { stdout: string }): Body => JSON.parse(out.stdout) as Body;
  const account = async (a: TestAgent): Promise<Body> =>
    ((await (await app.request('/api/v1/agent/account', { headers: { 'X-API-KEY': a.apiKey } })).json()) as Body).billing as Body;

  before(async () => {
    app = await startTestApp();
    await app.service.core.catalogue.seed.execute();
    agent = await buildAgent(app.service);
  });
  after(async () => {
    await app.stop();
  });

  it('when agent fund is given a non-positive or fractional amount, then a clear error, exit 1, and nothing is recorded', async () => {
    // Written as one argument and as two: a negative number after the flag is its value, not an option.
    const forms = ['0', '-500', '10.5', '1e3', 'ten'].flatMap((amount) => [[`--amount=${amount}`], ['--amount', amount]]);
    for (const form of forms) {
      const amount = form.join(' ');
      const out = await admin('agent', 'fund', '--agent', agent.agentId, ...form);
      expect(out.exitCode, `${amount}: ${out.stderr}`).to.equal(1);
      const error = (JSON.parse(out.stderr) as Body).error as Body;
      expect(error.reason).to.equal('invalid-request');
      expect(error.message).to.contain('--amount must be a whole positive number of minor units');
    }
    expect((await account(agent)).balance.amount).to.equal(0);
  });

  it('when an agent is funded and set prepaid with a credit limit, then the account shows it; an unknown agent is exit 1 agent-not-found', async () => {
    const funded = await admin('agent', 'fund', '--agent', agent.agentId, '--amount', '150000', '--reference', 'wire 42');
    expect(funded.exitCode, funded.stderr).to.equal(0);
    expect(parsed(funded)).to.deep.include({ agentId: agent.agentId, mode: 'invoice', balance: { amount: 150_000, currency: 'THB' } });
    expect(parsed(funded).transactionId).to.match(/^txn_/);
    const set = await admin('agent', 'set-billing', '--agent', agent.agentId, '--mode', 'prepaid', '--credit-limit', '50000');
    expect(set.exitCode, set.stderr).to.equal(0);
    expect(await account(agent)).to.deep.include({
      mode: 'prepaid',
      balance: { amount: 150_000, currency: 'THB' },
      creditLimit: { amount: 50_000, currency: 'THB' },
      spendable: { amount: 200_000, currency: 'THB' },
    });
    const unknown = await admin('agent', 'fund', '--agent', 'agt_nobody', '--amount', '100');
    expect([unknown.exitCode, (JSON.parse(unknown.stderr) as Body).error.reason]).to.deep.equal([1, 'agent-not-found']);
    const badMode = await admin('agent', 'set-billing', '--agent', agent.agentId, '--mode', 'credit');
    expect(badMode.exitCode).to.equal(2);
  });

  it('when agent create is given --billing prepaid, then the new agent is prepaid; without it, invoiced', async () => {
    const channel = agent.channelCode;
    const prepaid = parsed(await admin('agent', 'create', '--name', 'Prepaid Agency', '--channel', channel, '--billing', 'prepaid'));
    expect(prepaid).to.include({ billing: 'prepaid' });
    const shown = await app.service.core.booking.getAgentBilling.execute({
      agentId: prepaid.agentId as string,
      channel: { currency: 'THB' },
    } as never);
    expect(shown.mode).to.equal('prepaid');
    const invoiced = parsed(await admin('agent', 'create', '--name', 'Invoiced Agency', '--channel', channel));
    expect(Object.keys(invoiced)).to.deep.equal(['agentId', 'livemode']);
  });

  it('when a statement is asked for, then JSON with opening, lines and closing, or CSV with a header row', async () => {
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 86_400_000).toISOString();
    const s = parsed(await admin('agent', 'statement', '--agent', agent.agentId, '--from', from, '--to', to));
    expect(s.opening).to.deep.equal({ amount: 0, currency: 'THB' });
    expect(s.lines.map((l: Body) => [l.type, l.amount.amount, l.balance.amount])).to.deep.equal([['FUNDING', 150_000, 150_000]]);
    expect(s.closing).to.deep.equal({ amount: 150_000, currency: 'THB' });
    const csv = parsed(await admin('agent', 'statement', '--agent', agent.agentId, '--from', from, '--to', to, '--csv'));
    expect((csv.csv as string).split('\n')[0]).to.equal('at,type,orderId,agentReference,amount,balance,currency');
    const owed = await admin('operator', 'statement', '--operator', 'NOPE', '--from', from, '--to', to);
    expect([owed.exitCode, (JSON.parse(owed.stderr) as Body).error.reason]).to.deep.equal([1, 'operator-not-found']);
    void json;
  });
});
