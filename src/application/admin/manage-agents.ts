import {
  DEFAULT_CANCELLATION_TERMS,
  PRODUCTS,
  type Agent,
  type AgentStatus,
  type Channel,
  type Product,
} from '../../domain/identity/agent.js';
import type { AgentDirectory, ChannelChanges } from '../../domain/identity/agent-directory.port.js';
import { invalid, notFound } from '../../domain/shared/errors.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { isCurrencyCode } from '../../domain/shared/money.js';

const CODE = /^[A-Z0-9][A-Z0-9_-]{0,31}$/;
const MAX_BPS = 10_000;

/** Creates a sales channel with its contracted markup. */
export class CreateChannel {
  constructor(private readonly directory: AgentDirectory) {}

  async execute(input: { code: string; name: string; currency: string; markupBps?: number }): Promise<{ code: string }> {
    const markupBps = input.markupBps ?? 0;
    if (!CODE.test(input.code))
      throw invalid('invalid-request', 'Channel code must be 1-32 of A-Z, 0-9, _ and -, starting with a letter or digit.');
    if (!nameOk(input.name)) throw invalid('invalid-request', 'Channel name must be 1-200 characters.');
    if (!isCurrencyCode(input.currency)) throw invalid('invalid-request', 'Currency must be an ISO 4217 code such as THB.');
    checkMarkup(markupBps);
    await this.directory.createChannel({
      code: input.code,
      name: input.name,
      currency: input.currency,
      markupBps,
      ...DEFAULT_CANCELLATION_TERMS,
    });
    return { code: input.code };
  }
}

/** Changes a channel's markup and cancellation terms; every instance prices with them within a second. */
export class UpdateChannel {
  constructor(private readonly directory: AgentDirectory) {}

  async execute(code: string, changes: ChannelChanges): Promise<Channel> {
    if (changes.markupBps !== undefined) checkMarkup(changes.markupBps);
    const hours = changes.freeCancellationHours;
    if (hours !== undefined && (!Number.isInteger(hours) || hours < 0 || hours > MAX_FREE_CANCELLATION_HOURS)) {
      throw invalid('invalid-request', `Free cancellation must be a whole number of hours from 0 to ${MAX_FREE_CANCELLATION_HOURS}.`);
    }
    const fee = changes.lateCancellationFeeBps;
    if (fee !== undefined && (!Number.isInteger(fee) || fee < 0 || fee > MAX_BPS)) {
      throw invalid('invalid-request', 'The late cancellation fee must be an integer number of basis points between 0 and 10000.');
    }
    const channel = await this.directory.updateChannel(code, changes);
    if (channel === null) throw notFound('channel-not-found', `No channel ${code}.`);
    return channel;
  }
}

/** Every channel with its pricing and cancellation terms. */
export class ListChannels {
  constructor(private readonly directory: AgentDirectory) {}

  execute(): Promise<Channel[]> {
    return this.directory.listChannels();
  }
}

/** Creates an agent under a channel with its entitlements and contracted discount. */
export class CreateAgent {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: { name: string; channelCode: string; products?: readonly string[]; discountBps?: number }): Promise<Agent> {
    const products = input.products ?? PRODUCTS;
    const discountBps = input.discountBps ?? 0;
    if (!nameOk(input.name)) throw invalid('invalid-request', 'Agent name must be 1-200 characters.');
    const unknown = products.filter((p) => !(PRODUCTS as readonly string[]).includes(p));
    if (unknown.length > 0 || products.length === 0) {
      throw invalid('invalid-request', `Products must be a non-empty list of: ${PRODUCTS.join(', ')}.`);
    }
    if (!Number.isInteger(discountBps) || discountBps < 0 || discountBps > MAX_BPS) {
      throw invalid('invalid-request', 'Discount must be an integer number of basis points between 0 and 10000.');
    }
    return this.directory.createAgent({
      id: this.ids.next('agt'),
      name: input.name,
      channelCode: input.channelCode,
      entitlements: [...new Set(products as Product[])],
      discountBps,
      createdAt: this.clock.now(),
    });
  }
}

/** Suspends or re-activates an agent; every instance honours it within a second. */
export class SetAgentStatus {
  constructor(private readonly directory: AgentDirectory) {}

  async execute(agentId: string, status: AgentStatus): Promise<Agent> {
    const agent = await this.directory.setAgentStatus(agentId, status);
    if (agent === null) throw notFound('agent-not-found', `No agent ${agentId}.`);
    return agent;
  }
}

const MAX_FREE_CANCELLATION_HOURS = 8760;

const checkMarkup = (markupBps: number): void => {
  if (!Number.isInteger(markupBps) || Math.abs(markupBps) > MAX_BPS)
    throw invalid('invalid-request', 'Markup must be an integer number of basis points between -10000 and 10000.');
};

const nameOk = (name: string): boolean => name.trim().length >= 1 && name.length <= 200;
