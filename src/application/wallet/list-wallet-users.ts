import type { MachinePrincipal } from '../../domain/identity/principal.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { PAGE_LIMITS, decodeCursor, encodeCursor, type Page } from '../../domain/shared/page.js';
import { toWalletUserView, type WalletUserView } from './wallet-user-view.js';

/** The calling tenant's users in creation order, one keyset page at a time. */
export class ListWalletUsers {
  constructor(private readonly tenants: TenantDirectory) {}

  async execute(machine: MachinePrincipal, query: { cursor?: string; limit?: number }): Promise<Page<WalletUserView>> {
    const limit = query.limit ?? PAGE_LIMITS.default;
    if (!Number.isInteger(limit) || limit < PAGE_LIMITS.min || limit > PAGE_LIMITS.max) {
      throw new DomainError('invalid-request', { message: `limit must be ${PAGE_LIMITS.min}-${PAGE_LIMITS.max}.` });
    }
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    if (query.cursor !== undefined && after === null) throw new DomainError('invalid-request', { message: 'cursor is not valid.' });
    const rows = await this.tenants.listUsers(machine.tenantId, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(toWalletUserView),
      nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
    };
  }
}
