// Turns a verified token into the revocation record shared by revoke and log-out.

import type { VerifiedToken } from '../../domain/identity/token-verifier.port.js';

export const revocationOf = (token: VerifiedToken) => ({
  jti: token.jti,
  tenantId: token.principal.tenantId,
  expiresAt: new Date(token.exp * 1000),
});
