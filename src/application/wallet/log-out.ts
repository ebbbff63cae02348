import type { TokenRevocationList } from '../../domain/identity/token-revocation.port.js';
import type { VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import { revocationOf } from './token-revocation.js';

/** A wallet app signs its holder out: the user token that made the call is revoked. */
export class LogOut {
  constructor(private readonly revocations: TokenRevocationList) {}

  execute(token: VerifiedToken): Promise<void> {
    return this.revocations.revoke(revocationOf(token));
  }
}
