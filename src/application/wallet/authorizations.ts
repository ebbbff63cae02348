import type { MachinePrincipal, WalletPrincipal, WalletUserPrincipal } from '../../domain/identity/principal.js';
import { livemodeOf } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { IdGenerator, IdPrefix } from '../../domain/shared/ids.port.js';
import { pageOf, pageRequest, type Page, type PageQuery } from '../../domain/shared/page.js';
import { authorizationExpiry, authorizationInScope } from '../../domain/wallet/authorization.js';
import { amountIn, initiatorOf, type AmountInput } from '../../domain/wallet/ledger.js';
import {
  AUTHORIZATION_OWNER,
  pendingTransferNotFound,
  type PendingTransfer,
  type PendingTransferStatus,
} from '../../domain/wallet/pending-transfer.js';
import type { PendingTransfers } from '../../domain/wallet/pending-transfers.port.js';
import { transactionScope } from '../../domain/wallet/scope.js';
import type { Transaction } from '../../domain/wallet/transaction.js';
import type { WalletHolders } from '../../domain/wallet/wallet-holders.port.js';
import type { UnitOfWork } from '../unit-of-work.port.js';
import { tenantCurrency } from './wallet-caller.js';

/** How long after its deadline a lapse is recorded: a capture that arrived just before it still finds the authorization stored as PENDING. */
export const AUTHORIZATION_LAPSE_GRACE_MS = 5_000;

export interface AuthorizeCommand {
  readonly principal: WalletUserPrincipal;
  readonly amount: AmountInput;
  readonly reference: string;
  readonly expiresInSeconds?: number;
}

/** An authorization as true at `now`, with that instant, for the answer. */
export interface AuthorizationAt {
  readonly authorization: PendingTransfer;
  readonly now: Date;
}

/**
 * The step authorizing and capturing share, written once: one write of the pending transfers in
 * a unit of work, with a new id and the instant it is made at (returned too: the answer shows what
 * is true at that instant). Both read their amount in the tenant's currency, hence the holders.
 */
abstract class PendingTransferWrite {
  constructor(
    protected readonly transfers: PendingTransfers,
    protected readonly holders: WalletHolders,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /** Makes `work` at the current instant, in one unit of work, with a new id prefixed `idPrefix`. */
  protected async write<T>(idPrefix: IdPrefix, work: (id: string, at: Date) => Promise<T>): Promise<{ written: T; now: Date }> {
    const now = this.clock.now();
    const written = await this.unitOfWork.run(() => work(this.ids.next(idPrefix), now));
    return { written, now };
  }
}

/**
 * The person in the token authorizes a later charge: the amount is held from their available
 * balance at once (`insufficient-funds` when short) until it is captured, voided or lapses.
 */
export class AuthorizePayment extends PendingTransferWrite {
  async execute(c: AuthorizeCommand): Promise<AuthorizationAt> {
    const { tenantId, userId } = c.principal;
    const amount = amountIn(c.amount, await tenantCurrency(this.holders, tenantId));
    const { written: authorization, now } = await this.write('auth', (id, at) =>
      this.transfers.hold({
        id,
        tenantId,
        account: { kind: 'USER', userId },
        owner: { kind: AUTHORIZATION_OWNER, id: userId },
        reference: c.reference,
        amount,
        expiresAt: authorizationExpiry(at, c.expiresInSeconds),
        createdAt: at,
      }),
    );
    return { authorization, now };
  }
}

export interface CaptureCommand {
  readonly principal: MachinePrincipal;
  readonly authorizationId: string;
  /** How much to capture; absent captures everything that remains. */
  readonly amount: AmountInput | null;
  /** Resolves the authorization with this capture, whatever remains. */
  readonly final: boolean;
}

/**
 * The tenant's backend captures all or part of an authorization: a PAYMENT of the captured
 * amount, naming the authorization. Several partial captures until `final` or nothing remains.
 */
export class CaptureAuthorization extends PendingTransferWrite {
  async execute(c: CaptureCommand): Promise<AuthorizationAt & { capture: Transaction }> {
    const { tenantId } = c.principal;
    const currency = await tenantCurrency(this.holders, tenantId);
    const amount = c.amount === null ? null : amountIn(c.amount, currency).amount;
    await requireAuthorization(this.transfers, transactionScope(c.principal), c.authorizationId);
    const { written, now } = await this.write('txn', (transactionId, at) =>
      this.transfers.capture({
        tenantId,
        pendingTransferId: c.authorizationId,
        transactionId,
        amount,
        final: c.final,
        initiatedBy: initiatorOf(c.principal),
        at,
      }),
    );
    return { authorization: written.transfer, now, capture: written.transaction };
  }
}

/**
 * Voids an authorization (the tenant's backend, or the person it holds money of): the held amount
 * is available again. A repeated void answers the voided authorization unchanged; one captured
 * or lapsed is refused with `authorization-not-pending`.
 */
export class VoidAuthorization {
  constructor(
    private readonly transfers: PendingTransfers,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async execute(principal: WalletPrincipal, authorizationId: string): Promise<AuthorizationAt> {
    await requireAuthorization(this.transfers, transactionScope(principal), authorizationId);
    const now = this.clock.now();
    const { transfer } = await this.unitOfWork.run(() => this.transfers.void(principal.tenantId, authorizationId, now));
    return { authorization: transfer, now };
  }
}

/** One authorization within the caller's scope (a person's own only); else `authorization-not-found`. */
export class GetAuthorization {
  constructor(
    private readonly transfers: PendingTransfers,
    private readonly clock: Clock,
  ) {}

  async execute(principal: WalletPrincipal, authorizationId: string): Promise<AuthorizationAt> {
    const authorization = await requireAuthorization(this.transfers, transactionScope(principal), authorizationId);
    return { authorization, now: this.clock.now() };
  }
}

export interface AuthorizationQuery extends PageQuery {
  /** Narrows a machine token's listing to one user; ignored for a user token. */
  readonly userId?: string | null;
  readonly status?: PendingTransferStatus;
}

/** The authorizations the caller may see, newest first: the tenant's for a machine token, the person's own for a user token. */
export class ListAuthorizations {
  constructor(
    private readonly transfers: PendingTransfers,
    private readonly clock: Clock,
  ) {}

  async execute(principal: WalletPrincipal, q: AuthorizationQuery): Promise<Page<PendingTransfer> & { now: Date }> {
    const { after, limit } = pageRequest(q);
    const now = this.clock.now();
    const scope = transactionScope(principal, q.userId ?? null);
    const found = await this.transfers.listAuthorizations({ scope, status: q.status, after, limit: limit + 1, now });
    return { ...pageOf(found, limit), now };
  }
}

/**
 * Records the lapse of authorizations past their deadline (plus a grace), with their
 * `authorization.expired` events, in bounded batches, each once across instances. Reads and
 * balance checks never wait for it: an authorization is EXPIRED the instant it lapses.
 */
export class ExpireAuthorizations {
  constructor(
    private readonly transfers: PendingTransfers,
    private readonly clock: Clock,
    private readonly batch = 500,
  ) {}

  async execute(): Promise<number> {
    const due = new Date(this.clock.now().getTime() - AUTHORIZATION_LAPSE_GRACE_MS);
    let recorded = 0;
    for (;;) {
      const found = await this.transfers.expireDue(due, this.batch);
      recorded += found.length;
      if (found.length < this.batch) return recorded;
    }
  }
}

/**
 * A sandbox tenant's test helper: one of its PENDING authorizations reaches its deadline now and
 * lapses exactly as the expiry records a lapse (EXPIRED, the held amount free at once, one
 * `authorization.expired` event in the same transaction). Outside the tenant →
 * `authorization-not-found`; resolved or lapsed already → `authorization-not-pending`. A live
 * tenant has no test helpers: the answer is null, and nothing is read or written.
 */
export class ExpireTestAuthorization {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly transfers: PendingTransfers,
    private readonly clock: Clock,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async execute(principal: MachinePrincipal, authorizationId: string): Promise<AuthorizationAt | null> {
    const tenant = await this.tenants.findTenant(principal.tenantId);
    if (tenant === null || livemodeOf(tenant)) return null;
    await requireAuthorization(this.transfers, transactionScope(principal), authorizationId);
    const now = this.clock.now();
    const authorization = await this.unitOfWork.run(() => this.transfers.expireNow(principal.tenantId, authorizationId, now));
    return { authorization, now };
  }
}

async function requireAuthorization(
  transfers: PendingTransfers,
  scope: ReturnType<typeof transactionScope>,
  id: string,
): Promise<PendingTransfer> {
  const found = await transfers.find(scope.tenantId, id);
  if (found === null || !authorizationInScope(scope, found)) throw pendingTransferNotFound();
  return found;
}
