import { DomainError } from '../shared/errors.js';
import type { MachinePrincipal, WalletPrincipal, WalletUserPrincipal } from './principal.js';

/** Which token a wallet operation takes. */
export type WalletTokenRule = 'machine' | 'user' | 'either';

/**
 * The one rule for token kinds. A machine token on a user operation is structurally not a wallet
 * user (401); a user token on a machine operation lacks the tenant's authority (403).
 */
export const requireTokenKind = (principal: WalletPrincipal, rule: WalletTokenRule): WalletPrincipal => {
  if (rule === 'user' && principal.kind !== 'user') throw notAWalletUser();
  if (rule === 'machine' && principal.kind !== 'machine') {
    throw new DomainError('machine-token-required');
  }
  return principal;
};

/** Narrows to a machine principal or refuses as `requireTokenKind` would. */
export const asMachine = (principal: WalletPrincipal): MachinePrincipal => requireTokenKind(principal, 'machine') as MachinePrincipal;

/** Narrows to a wallet user or refuses as `requireTokenKind` would. */
export const asWalletUser = (principal: WalletPrincipal): WalletUserPrincipal => requireTokenKind(principal, 'user') as WalletUserPrincipal;

const notAWalletUser = (): DomainError => new DomainError('not-a-wallet-user');
