import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { requireOwned } from '../../domain/booking/ownership.js';
import type { Quote } from '../../domain/booking/quote.js';
import type { QuoteRepo } from '../../domain/booking/quote-repo.port.js';

/** One of the caller's own quotes. */
export class GetQuote {
  constructor(private readonly quotes: QuoteRepo) {}

  async execute(principal: AgentPrincipal, quoteId: string): Promise<Quote> {
    return requireOwned(await this.quotes.findForAgent(principal.agentId, quoteId), principal.agentId, 'quote-not-found');
  }
}
