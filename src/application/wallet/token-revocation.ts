// Turns a verified token into the revocation record shared by revoke and log-out.

import { tenantEvent, type NewSecurityEvent, type SecurityContext } from '../../domain/security-events/security-event.js';
import type { VerifiedToken } from '../../domain/identity/token-verifier.port.js';

export const revocationOf = (token: VerifiedToken) => ({
  jti: token.jti,
  tenantId: token.principal.tenantId,
  expiresAt: new Date(token.exp * 1000),
});

/** `token.revoked`: the token by its id (`jti`) and kind, never the token itself. */
export const tokenRevokedEvent = (token: VerifiedToken, context: SecurityContext, at: Date): NewSecurityEvent =>
  tenantEvent('token.revoked', token.principal.tenantId, { kind: 'token', id: token.jti }, context, at, {
    tokenKind: token.principal.kind,
    ...(token.principal.kind === 'user' ? { userId: token.principal.userId } : {}),
    expiresAt: new Date(token.exp * 1000).toISOString(),
  });
