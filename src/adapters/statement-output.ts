import { stringify } from 'csv-stringify';
import type { StatementLine, StatementStream } from '../domain/billing/agent-accounts.port.js';

/** A statement line as the API writes it (RFC 3339 time, money objects). */
export const statementLineJson = (l: StatementLine): Record<string, unknown> => ({
  at: l.at.toISOString(),
  type: l.type,
  orderId: l.orderId,
  agentReference: l.agentReference,
  amount: l.amount,
  balance: l.balance,
});

/**
 * A statement as JSON text, written a line at a time (`{ from, to, currency, livemode, opening, lines,
 * closing }`): the closing balance comes after the lines it sums, so nothing is held back.
 */
export async function* statementJsonChunks(s: StatementStream, from: Date, to: Date, livemode?: boolean): AsyncGenerator<string> {
  yield (
    `{"from":${JSON.stringify(from.toISOString())},"to":${JSON.stringify(to.toISOString())},"currency":${JSON.stringify(s.currency)},` +
    (livemode === undefined ? '' : `"livemode":${livemode},`) +
    `"opening":${JSON.stringify(s.opening)},"lines":[`
  );
  let closing = s.opening.amount;
  let first = true;
  for await (const line of s.lines) {
    closing = line.balance.amount;
    yield `${first ? '' : ','}${JSON.stringify(statementLineJson(line))}`;
    first = false;
  }
  yield `],"closing":${JSON.stringify({ amount: closing, currency: s.currency })}}`;
}

/** The CSV columns of a statement (a header row first); amounts in minor units. */
export const STATEMENT_CSV_COLUMNS = ['at', 'type', 'orderId', 'agentReference', 'amount', 'balance', 'currency'] as const;

/**
 * A statement as CSV through csv-stringify's stream: the header row, an OPENING row, one row
 * per line, a CLOSING row; backpressure flows from the reader to the database reads.
 */
export function statementCsv(s: StatementStream, from: Date, to: Date): NodeJS.ReadableStream {
  const csv = stringify({ header: true, columns: [...STATEMENT_CSV_COLUMNS] });
  void (async () => {
    try {
      const write = async (row: Record<string, unknown>): Promise<void> => {
        if (!csv.write(row)) await new Promise<void>((resolve) => csv.once('drain', resolve));
      };
      await write({ at: from.toISOString(), type: 'OPENING', amount: '', balance: s.opening.amount, currency: s.currency });
      let closing = s.opening.amount;
      for await (const l of s.lines) {
        closing = l.balance.amount;
        await write({
          at: l.at.toISOString(),
          type: l.type,
          orderId: l.orderId ?? '',
          agentReference: l.agentReference ?? '',
          amount: l.amount.amount,
          balance: l.balance.amount,
          currency: l.amount.currency,
        });
      }
      await write({ at: to.toISOString(), type: 'CLOSING', amount: '', balance: closing, currency: s.currency });
      csv.end();
    } catch (err) {
      csv.destroy(err as Error);
    }
  })();
  return csv;
}

/** Reads a whole stream as text (for the command line, which prints what it got). */
export async function textOf(chunks: AsyncIterable<string | Buffer>): Promise<string> {
  let out = '';
  for await (const c of chunks) out += typeof c === 'string' ? c : c.toString('utf8');
  return out;
}
