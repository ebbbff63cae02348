import { PRODUCTS, type Agent, type Product } from '../../domain/identity/agent.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator } from '../../domain/shared/ids.port.js';
import { MAX_BPS, nameOk } from './agent-directory-rules.js';

/** Creates an agent under a channel with its entitlements and contracted discount. */
export class CreateAgent {
  constructor(
    private readonly directory: AgentDirectory,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async execute(input: {
    name: string;
    channelCode: string;
    products?: readonly string[];
    discountBps?: number;
    livemode?: boolean;
  }): Promise<Agent> {
    const products = input.products ?? PRODUCTS;
    const discountBps = input.discountBps ?? 0;
    if (!nameOk(input.name)) throw new DomainError('invalid-request', { message: 'Agent name must be 1-200 characters.' });
    const unknown = products.filter((p) => !(PRODUCTS as readonly string[]).includes(p));
    if (unknown.length > 0 || products.length === 0) {
      throw new DomainError('invalid-request', { message: `Products must be a non-empty list of: ${PRODUCTS.join(', ')}.` });
    }
    if (!Number.isInteger(discountBps) || discountBps < 0 || discountBps > MAX_BPS) {
      throw new DomainError('invalid-request', { message: 'Discount must be an integer number of basis points between 0 and 10000.' });
    }
    return this.directory.createAgent({
      id: this.ids.next('agt'),
      name: input.name,
      channelCode: input.channelCode,
      entitlements: [...new Set(products as Product[])],
      discountBps,
      createdAt: this.clock.now(),
      livemode: input.livemode ?? true,
    });
  }
}
