import type { CatalogueWriter } from '../../domain/catalogue/catalogue.port.js';
import { catalogueOf, type BusSchedule } from '../../domain/catalogue/catalogue.js';
import type { Operator } from '../../domain/catalogue/operator.js';
import type { TariffReader } from '../../domain/catalogue/tariff.port.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { RandomSource } from '../../domain/shared/secrets.port.js';
import type { FundAgent, SetAgentBilling } from '../billing/agent-billing.js';
import type { CreateAgent } from './create-agent.js';
import type { CreateChannel } from './create-channel.js';
import type { CreateOperator } from './create-operator.js';
import type { CreateTenant } from './create-tenant.js';
import type { CreateTenantUser } from './create-tenant-user.js';
import type { IssueApiKey } from './issue-api-key.js';
import type { IssueOperatorKey } from './operator-keys.js';

/** The channel every sandbox agent books on: the catalogue's base fares, unmarked. */
export const SANDBOX_CHANNEL = { code: 'SANDBOX', name: 'Sandbox channel', currency: 'THB', markupBps: 0 } as const;
/** What a new sandbox agent finds in its prepaid account: 100,000.00 THB of sandbox money. */
export const SANDBOX_FUNDS = 10_000_000;
/** The e-mail the sandbox tenant's user logs in with (one per tenant, so the same in every sandbox). */
export const SANDBOX_USER_EMAIL = 'traveller@sandbox.example';
/**
 * The express bus the sandbox operator runs when the catalogue has its cities: Bangkok → Hua Hin,
 * daily at 12:00, where the demo's own on-request bus runs too (so the README's tour reads the same
 * in test mode).
 */
const SANDBOX_ROUTE = { fromCityId: 'cty_bangkok', toCityId: 'cty_huahin' } as const;

/** What `sandbox create` makes and prints: every credential, shown this once. */
export interface SandboxCredentials {
  readonly name: string;
  readonly agent: {
    readonly agentId: string;
    readonly channel: string;
    readonly keyId: string;
    readonly apiKey: string;
    readonly funds: number;
  };
  readonly tenant: {
    readonly tenantId: string;
    readonly clientId: string;
    readonly clientSecret: string;
    readonly user: { readonly userId: string; readonly email: string; readonly password: string };
  };
  readonly operator: {
    readonly code: string;
    readonly confirmation: 'on-request';
    readonly keyId: string;
    readonly apiKey: string;
    /** The bus schedule it runs for sandbox agents; null when the catalogue has no cities for it. */
    readonly scheduleId: string | null;
  };
}

/**
 * `sandbox create` (CONTRACT §6.7): a sandbox for both surfaces at once, named `name`. A test agent
 * on the sandbox channel, prepaid and funded with sandbox money, with a `pbk_test_` key; a test
 * tenant (`cli_test_`) with a user who can log in; a test on-request operator with a `pbo_test_`
 * key, running a bus of its own that only sandbox agents see, so that its key has orders to answer.
 */
export class CreateSandbox {
  constructor(
    private readonly directory: Pick<AgentDirectory, 'findChannel'>,
    private readonly createChannel: CreateChannel,
    private readonly createAgent: CreateAgent,
    private readonly issueKey: IssueApiKey,
    private readonly setBilling: SetAgentBilling,
    private readonly fund: FundAgent,
    private readonly createTenant: CreateTenant,
    private readonly createUser: CreateTenantUser,
    private readonly createOperator: CreateOperator,
    private readonly issueOperatorKey: IssueOperatorKey,
    private readonly catalogue: { readonly writer: CatalogueWriter; readonly tariffs: Pick<TariffReader, 'findCities'> },
    private readonly random: RandomSource,
  ) {}

  async execute(input: { name: string }): Promise<SandboxCredentials> {
    const name = input.name.trim();
    if (name.length < 1 || name.length > 100)
      throw new DomainError('invalid-request', { message: 'A sandbox name must be 1-100 characters.' });
    if ((await this.directory.findChannel(SANDBOX_CHANNEL.code)) === null) await this.createChannel.execute(SANDBOX_CHANNEL);
    const agent = await this.createAgent.execute({ name, channelCode: SANDBOX_CHANNEL.code, livemode: false });
    await this.setBilling.execute({ agentId: agent.id, mode: 'prepaid', creditLimit: 0 });
    await this.fund.execute({ agentId: agent.id, amount: SANDBOX_FUNDS, reference: 'sandbox funds' });
    const key = await this.issueKey.execute({ agentId: agent.id });

    const client = await this.createTenant.execute({ name, currency: SANDBOX_CHANNEL.currency, test: true });
    const password = this.hex(12);
    const user = await this.createUser.execute(client.tenantId, { email: SANDBOX_USER_EMAIL, password, externalUserRef: 'sandbox-user-1' });

    const operator = await this.createOperator.execute({
      code: `SANDBOX-${this.hex(4).toUpperCase()}`,
      name: `${name.slice(0, 80)} (sandbox operator)`,
      timezone: 'Asia/Bangkok',
      confirmation: 'on-request',
      livemode: false,
    });
    const operatorKey = await this.issueOperatorKey.execute(operator.code);
    const scheduleId = await this.busFor(operator);
    return {
      name,
      agent: { agentId: agent.id, channel: SANDBOX_CHANNEL.code, keyId: key.keyId, apiKey: key.apiKey, funds: SANDBOX_FUNDS },
      tenant: {
        tenantId: client.tenantId,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        user: { userId: user.id, email: SANDBOX_USER_EMAIL, password },
      },
      operator: { code: operator.code, confirmation: 'on-request', keyId: operatorKey.keyId, apiKey: operatorKey.apiKey, scheduleId },
    };
  }

  /** A daily bus of the sandbox operator between the catalogue's two cities, when it has them. */
  private async busFor(operator: Operator): Promise<string | null> {
    const cities = await this.catalogue.tariffs.findCities([SANDBOX_ROUTE.fromCityId, SANDBOX_ROUTE.toCityId]);
    if (cities.length < 2) return null;
    const schedule: BusSchedule = {
      id: `sch_${operator.code.toLowerCase().replace(/-/g, '_')}`,
      ...SANDBOX_ROUTE,
      operatorCode: operator.code,
      departureTimes: ['12:00'],
      utcOffsetMinutes: 420,
      durationMinutes: 210,
      seatCapacity: 40,
      baseFare: { amount: 20_000, currency: SANDBOX_CHANNEL.currency },
    };
    await this.catalogue.writer.load(catalogueOf({ operators: [operator], schedules: [schedule] }));
    return schedule.id;
  }

  private hex(bytes: number): string {
    let text = '';
    for (const b of this.random.bytes(bytes)) text += b.toString(16).padStart(2, '0');
    return text;
  }
}
