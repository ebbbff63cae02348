import { signInAttemptContext, userContext, walletUserEvent, type RequestOrigin } from '../../domain/security-events/security-event.js';
import { DpopRefusal } from '../../domain/identity/dpop.js';
import type { SecurityEvents } from '../../domain/security-events/security-events.port.js';
import type { PasswordHasher } from '../../domain/identity/password-hasher.port.js';
import { LOGIN_THROTTLE, accountThrottleKey, addressThrottleKey, requireNotThrottled } from '../../domain/identity/login-throttle.js';
import type { LoginThrottleStore } from '../../domain/identity/login-throttle.port.js';
import { isDisabled, normalizeEmail } from '../../domain/identity/tenant.js';
import type { TenantDirectory } from '../../domain/identity/tenant-directory.port.js';
import type { IssuedToken, TokenBinding, TokenIssuer } from '../../domain/identity/token-issuer.port.js';
import { AMR } from '../../domain/identity/wallet-token.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { bindingOrRefuse, type CheckDpopProof, type DpopRequestContext } from './check-dpop-proof.js';

/**
 * A wallet holder signs in with the tenant's client id, email and password. An unknown client,
 * unknown email, missing password and wrong password all answer `invalid-credentials` after the
 * same scrypt work; so does a disabled person, even with the right password. Attempts are counted before the password is checked, per account and per
 * client address, so even parallel guesses cannot exceed the limits. The DPoP proof (required
 * or sent) is checked before the password: a refused proof answers the same whether the
 * password was right or wrong, and is recorded like a wrong password. The trail's
 * `user.login_failed` and `user.locked_out` name the account as their subject and an
 * anonymous actor: whoever typed the email is not known to be its holder.
 */
export class LogIn {
  constructor(
    private readonly tenants: TenantDirectory,
    private readonly passwords: PasswordHasher,
    private readonly throttle: LoginThrottleStore,
    private readonly issuer: TokenIssuer,
    private readonly clock: Clock,
    private readonly trail: SecurityEvents,
    private readonly dpop: CheckDpopProof | null = null,
  ) {}

  /**
   * `address`: the client address as every limit of the service counts it (an IPv6 address by
   * its /56 network, see the HTTP adapter's `clientAddress`), so the lockout per address cannot
   * be sidestepped with another address of the same network.
   */
  async execute(
    input: { clientId: string; email: string; password: string; address: string; origin?: RequestOrigin },
    dpop?: DpopRequestContext,
  ): Promise<IssuedToken> {
    const email = normalizeEmail(input.email);
    const accountKey = accountThrottleKey(input.clientId, email);
    const addressKey = addressThrottleKey(input.address);
    const now = this.clock.now();
    const states = [
      await this.throttle.hit(accountKey, now, LOGIN_THROTTLE.account),
      await this.throttle.hit(addressKey, now, LOGIN_THROTTLE.address),
    ];
    const tenant = await this.tenants.findTenantByClientId(input.clientId);
    const user = tenant === null ? null : await this.tenants.findUserByEmail(tenant.id, email);
    const context = signInAttemptContext(input.origin);
    // The attempt that goes over the account's limit locks it: recorded once per lock.
    if (
      tenant !== null &&
      user !== null &&
      states[0]!.lockedUntil !== null &&
      states[0]!.attempts === LOGIN_THROTTLE.account.maxAttempts + 1
    ) {
      await this.trail.append(
        walletUserEvent('user.locked_out', user, context, now, {
          lockedUntil: states[0]!.lockedUntil.toISOString(),
        }),
      );
    }
    requireNotThrottled(states, now);
    // A failure against a known user is recorded, at most once per user and minute (never the password).
    const recordFailure = async (reason: 'invalid-credentials' | 'invalid-dpop-proof'): Promise<void> => {
      if (tenant === null || user === null) return;
      await this.trail.append(walletUserEvent('user.login_failed', user, context, now, { reason }));
    };

    // The proof before the password, so that its refusal tells nothing of the password; the
    // attempt stays counted.
    let binding: TokenBinding | null = null;
    if (tenant !== null) {
      try {
        binding = await bindingOrRefuse(this.dpop, tenant, dpop);
      } catch (err) {
        if (err instanceof DpopRefusal) await recordFailure('invalid-dpop-proof');
        throw err;
      }
    }

    const ok = await this.passwords.verify(input.password, user?.passwordHash ?? null);
    // A disabled person gets the same answer as a wrong password, and the attempt counts as a
    // failure: the answer must not confirm to whoever holds a password that it is right.
    if (!ok || tenant === null || user === null || isDisabled(user)) {
      await recordFailure('invalid-credentials');
      throw new DomainError('invalid-credentials');
    }
    await this.throttle.release(accountKey, true);
    await this.throttle.release(addressKey, false);
    const token = await this.issuer.issue(
      {
        kind: 'user',
        tenantId: tenant.id,
        userId: user.id,
        amr: [AMR.password],
        act: null,
        clientId: tenant.clientId,
      },
      binding,
    );
    await this.trail.append(
      walletUserEvent('user.login_succeeded', user, userContext({ userId: user.id, amr: [AMR.password] }, input.origin), now),
    );
    return token;
  }
}
