import type { Quote } from './quote.js';

/** Stored quotes. Reads take the calling agent, so no adapter can hand out another agent's quote. */
export interface QuoteRepo {
  /** Stores a new quote (ids are unique; inserting an existing id is a programming error and throws). */
  insert(quote: Quote): Promise<void>;
  /** Returns the agent's quote, or null when it does not exist or belongs to another agent. */
  findForAgent(agentId: string, quoteId: string): Promise<Quote | null>;
}
