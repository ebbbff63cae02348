import type { RequestHandler } from 'express';
import { DpopRefusal, dpopSchemeToken } from '../../domain/identity/dpop.js';
import { DomainError } from '../../domain/shared/errors.js';
import { HttpProblem } from './problem.js';
import { dpopRequestOf } from './wallet/oauth.js';
import type { VerifyWalletToken } from '../../application/wallet/wallet-caller.js';
import type { MachinePrincipal, WalletPrincipal, WalletUserPrincipal } from '../../domain/identity/principal.js';
import type { VerifiedToken } from '../../domain/identity/token-verifier.port.js';
import { asMachine, asWalletUser, requireTokenKind } from '../../domain/identity/wallet-token.js';
import type { AuthFailureLimit } from './rate-limits.js';

/**
 * Authenticates a wallet route from `Authorization` and enforces the token kind it takes, in
 * this one place: missing or invalid → 401 `invalid-token`; a machine token on a user route →
 * 401 `not-a-wallet-user`; a user token on a machine route → 403 `machine-token-required`.
 * An unbound token is sent as `Bearer`; a DPoP-bound one as `DPoP` with a `DPoP` proof for this
 * very request (RFC 9449 §7), its URL the public one (`publicOrigin`, the issuer's, joined with
 * the request's path); a bound token as Bearer, or a missing or failed proof → 401
 * `invalid-dpop-proof` with `WWW-Authenticate: DPoP error="…"`.
 * Sets `res.locals.wallet`. Use it per route: `router.get(path, auth('user'), handler)`.
 * An address that failed too often is refused before the token is checked (`failures`).
 */
export const walletAuth =
  (verify: VerifyWalletToken, failures?: AuthFailureLimit, publicOrigin = '') =>
  (rule: 'machine' | 'user' | 'either'): RequestHandler =>
  async (req, res, next) => {
    const authenticate = () => verify.authenticateRequest(req.headers.authorization, dpopRequestOf(req, publicOrigin));
    let caller;
    try {
      caller = failures === undefined ? await authenticate() : await failures.guard(req, authenticate);
    } catch (err) {
      if (err instanceof DpopRefusal) {
        throw new HttpProblem(401, err.reason, err.message, {}, { 'WWW-Authenticate': `DPoP error="${err.oauthError}"` });
      }
      // A bad token sent with the DPoP scheme is challenged in that scheme (RFC 9449 §7.1).
      if (err instanceof DomainError && err.reason === 'invalid-token' && dpopSchemeToken(req.headers.authorization) !== null) {
        throw new HttpProblem(401, err.reason, err.message, {}, { 'WWW-Authenticate': 'DPoP error="invalid_token"' });
      }
      throw err;
    }
    const { principal, user, token, livemode } = caller;
    res.locals.wallet = requireTokenKind(principal, rule);
    // The person as read by this check, for `/me`-style routes (null for a machine token).
    res.locals.walletUser = user;
    // The token itself (jti, iat, exp, cnf), for sign-out.
    res.locals.walletToken = token;
    // The tenant's mode, which every wallet object answered to this caller carries.
    res.locals.walletLivemode = livemode;
    next();
  };

const principalOf = (locals: { wallet?: WalletPrincipal }): WalletPrincipal => {
  if (locals.wallet === undefined) throw new Error('wallet route reached without bearer authentication');
  return locals.wallet;
};

/** The tenant backend a `machine` route acts for. */
export const machineOf = (locals: { wallet?: WalletPrincipal }): MachinePrincipal => asMachine(principalOf(locals));

/** The verified token of the request (set by the bearer middleware). */
export const tokenOf = (locals: { walletToken?: VerifiedToken }): VerifiedToken => {
  if (locals.walletToken === undefined) throw new Error('wallet route reached without bearer authentication');
  return locals.walletToken;
};

/** Whether the wallet caller's tenant is live (false: a sandbox tenant), as the bearer check read it. */
export const livemodeOf = (locals: { walletLivemode?: boolean }): boolean => {
  if (locals.walletLivemode === undefined) throw new Error('wallet route reached without bearer authentication');
  return locals.walletLivemode;
};

/** The wallet holder a `user` route acts for. */
export const userOf = (locals: { wallet?: WalletPrincipal }): WalletUserPrincipal => asWalletUser(principalOf(locals));
