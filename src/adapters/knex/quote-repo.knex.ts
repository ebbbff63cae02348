import type { Quote } from '../../domain/booking/quote.js';
import type { QuoteRepo } from '../../domain/booking/quote-repo.port.js';
import { quoteOf, quoteToRow, type QuoteRow } from './booking-rows.js';
import { rows } from './sql.js';
import { KnexStore } from './knex-store.js';

/** Every column of a quote, in the order `insert` passes them. */
const INSERT = `INSERT INTO quotes (id, agent_id, channel_code, key_id, product, amount, currency, details, seats, starts_at, expires_at, created_at,
    vehicle, operator, confirmation, base_fare_amount, livemode)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`;

/** Quotes on PostgreSQL; every read is filtered by the owning agent in SQL. */
export class KnexQuoteRepo extends KnexStore implements QuoteRepo {
  /** One prepared statement with explicit columns: every quote request pays for this insert. */
  async insert(quote: Quote): Promise<void> {
    const r = quoteToRow(quote);
    await rows(
      this.knex,
      INSERT,
      [
        r.id,
        r.agent_id,
        r.channel_code,
        r.key_id,
        r.product,
        r.amount,
        r.currency,
        r.details,
        r.seats,
        r.starts_at,
        r.expires_at,
        r.created_at,
        r.vehicle,
        r.operator,
        r.confirmation,
        r.base_fare_amount,
        r.livemode,
      ],
      'quotes.insert',
    );
  }

  /** One prepared statement: every order reads its quote. */
  async findForAgent(agentId: string, quoteId: string): Promise<Quote | null> {
    const [row] = await rows<QuoteRow>(
      this.knex,
      'SELECT * FROM quotes WHERE id = $1 AND agent_id = $2',
      [quoteId, agentId],
      'quotes.find',
    );
    return row === undefined ? null : quoteOf(row);
  }
}
