import type { Knex } from 'knex';
import type { Quote } from '../../domain/booking/quote.js';
import type { QuoteRepo } from '../../domain/booking/quote-repo.port.js';
import { quoteOf, quoteToRow, type QuoteRow } from './booking-rows.js';
import { transactionOf } from './request-transaction.js';
import type { UnitOfWork } from '../../domain/shared/idempotency.port.js';

/** Quotes on PostgreSQL; every read is filtered by the owning agent in SQL. */
export class KnexQuoteRepo implements QuoteRepo {
  constructor(private readonly knex: Knex) {}

  async insert(quote: Quote): Promise<void> {
    await this.knex('quotes').insert(quoteToRow(quote));
  }

  async findForAgent(agentId: string, quoteId: string, unitOfWork?: UnitOfWork | null): Promise<Quote | null> {
    const row = (await (transactionOf(unitOfWork) ?? this.knex)('quotes').where({ id: quoteId, agent_id: agentId }).first()) as
      QuoteRow | undefined;
    return row === undefined ? null : quoteOf(row);
  }
}
