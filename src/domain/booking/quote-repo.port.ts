import type { UnitOfWork } from '../shared/idempotency.port.js';
import type { Quote } from './quote.js';

/** Stored quotes. Reads take the calling agent, so no adapter can hand out another agent's quote. */
export interface QuoteRepo {
  /** Stores a new quote (ids are unique; inserting an existing id is a programming error and throws). */
  insert(quote: Quote): Promise<void>;
  /**
   * Returns the agent's quote, or null when it does not exist or belongs to another agent; read in
   * the request's unit of work when given one the adapter can use (`OrderRepo`), saving a
   * transaction of its own.
   */
  findForAgent(agentId: string, quoteId: string, unitOfWork?: UnitOfWork | null): Promise<Quote | null>;
}
