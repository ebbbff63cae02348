import type { MachinePrincipal, WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { Ledger, StatementLine } from '../../domain/wallet/ledger.port.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import { requireHolder, tenantCurrency } from './wallet-caller.js';

/** The longest period one statement covers: a year and a day. */
export const STATEMENT_MAX_DAYS = 366;
/** The period a statement covers when the caller names no `from`: thirty days up to `to`. */
export const STATEMENT_DEFAULT_DAYS = 30;
/** How many lines each read of a statement fetches: memory stays flat however long the period. */
const STATEMENT_PAGE = 1000;
const DAY_MS = 86_400_000;

/**
 * An account statement for `[from, to)`: the balance before `from` (`opening`), then every
 * entry of the period in the order it was applied, each with the balance it left. `lines` is
 * read page by page from storage as it is consumed; the closing balance is the last line's
 * (the opening when there is none), so opening plus the lines always equals closing.
 */
export interface Statement {
  readonly from: Date;
  readonly to: Date;
  readonly currency: string;
  readonly opening: number;
  readonly lines: AsyncIterable<StatementLine>;
}

/** The period asked for, checked: `to` defaults to now, `from` to thirty days before it, at most a year and a day. */
export const statementPeriod = (now: Date, from: Date | undefined, to: Date | undefined): { from: Date; to: Date } => {
  const end = to ?? now;
  const start = from ?? new Date(end.getTime() - STATEMENT_DEFAULT_DAYS * DAY_MS);
  if (start.getTime() > end.getTime()) {
    throw new DomainError('invalid-request', {
      message: '`from` must not be after `to`.',
      details: { errors: [{ path: 'from', message: 'must not be after to' }] },
    });
  }
  if (end.getTime() - start.getTime() > STATEMENT_MAX_DAYS * DAY_MS) {
    throw new DomainError('invalid-request', {
      message: `A statement covers at most ${STATEMENT_MAX_DAYS} days.`,
      details: { errors: [{ path: 'to', message: `must be at most ${STATEMENT_MAX_DAYS} days after from` }] },
    });
  }
  return { from: start, to: end };
};

abstract class StatementRead {
  constructor(
    private readonly ledger: Ledger,
    protected readonly holders: WalletHolders,
    private readonly clock: Clock,
  ) {}

  protected async statementOf(tenantId: string, userId: string, from: Date | undefined, to: Date | undefined): Promise<Statement> {
    const currency = await tenantCurrency(this.holders, tenantId);
    const period = statementPeriod(this.clock.now(), from, to);
    const opening = await this.ledger.balanceBefore(tenantId, userId, period.from);
    const ledger = this.ledger;
    async function* lines(): AsyncIterable<StatementLine> {
      let after: StatementLine | null = null;
      for (;;) {
        const page = await ledger.statementLines(tenantId, userId, period, after, STATEMENT_PAGE);
        yield* page;
        if (page.length < STATEMENT_PAGE) return;
        after = page[page.length - 1]!;
      }
    }
    return { ...period, currency, opening, lines: lines() };
  }
}

/** The statement of the person in the token. */
export class GetMyStatement extends StatementRead {
  execute(principal: WalletUserPrincipal, from?: Date, to?: Date): Promise<Statement> {
    return this.statementOf(principal.tenantId, principal.userId, from, to);
  }
}

/** The statement of one of the calling tenant's users; `user-not-found` outside the tenant. */
export class GetUserStatement extends StatementRead {
  async execute(machine: MachinePrincipal, userId: string, from?: Date, to?: Date): Promise<Statement> {
    await requireHolder(this.holders, machine.tenantId, userId);
    return this.statementOf(machine.tenantId, userId, from, to);
  }
}
