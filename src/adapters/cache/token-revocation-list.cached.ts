import type { NewSecurityEvent } from '../../domain/security-events/security-event.js';
import type { RevokedToken, TokenRevocationList } from '../../domain/identity/token-revocation.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { CacheHealth } from './lru-caches.js';

/** Where revocations are kept for every instance. */
export interface RevokedTokenStore {
  insert(token: RevokedToken, now: Date, event?: NewSecurityEvent): Promise<void>;
  has(jti: string): Promise<boolean>;
  listLive(after: Date): Promise<Array<{ jti: string; exp: number }>>;
  purge(before: Date): Promise<number>;
}

/** How long past its `exp` a revoked jti is still remembered: the verifier's clock tolerance and more. */
const GRACE_SECONDS = 60;
/** At most one purge of the store per instance in this many milliseconds. */
const PURGE_EVERY_MS = 60_000;

/**
 * Every revoked jti still worth remembering, held in memory by each instance, so a token that
 * was never revoked costs a set lookup and no database read. The set is loaded at start and
 * again whenever the change feed reconnects; each revocation made anywhere is announced by the
 * database with its jti and expiry and added here as it arrives. While the feed is down or the
 * set is (re)loading, every question goes to the store instead. Entries leave the set (and the
 * store) once their token has expired.
 */
export class FeedTokenRevocationList implements TokenRevocationList {
  private readonly revoked = new Map<string, number>();
  private loaded = false;
  private loading: Promise<void> | null = null;
  private reloadAgain = false;
  private lastSweep = 0;

  constructor(
    private readonly store: RevokedTokenStore,
    private readonly health: CacheHealth,
    private readonly clock: Clock,
  ) {}

  isRevoked(jti: string): boolean | Promise<boolean> {
    if (this.revoked.has(jti)) return true;
    if (this.loaded && this.health.trusted) return false;
    return this.store.has(jti);
  }

  async revoke(token: RevokedToken, event?: NewSecurityEvent): Promise<void> {
    const now = this.clock.now();
    await this.store.insert(token, now, event);
    this.remember(token.jti, Math.floor(token.expiresAt.getTime() / 1000));
    this.sweep(now);
  }

  /**
   * What the change feed heard about revoked tokens: `<exp seconds>:<jti>` for one revocation,
   * null when anything may have been missed (then the whole set is read again).
   */
  heard(detail: string | null): void {
    const sep = detail === null ? -1 : detail.indexOf(':');
    const exp = sep < 0 ? Number.NaN : Number(detail!.slice(0, sep));
    if (detail === null || !Number.isFinite(exp)) {
      void this.reload().catch(() => undefined);
      return;
    }
    this.remember(detail.slice(sep + 1), exp);
    this.sweep(this.clock.now());
  }

  /** Loads the set; the instance answers from memory only once this has completed. */
  start(): Promise<void> {
    return this.reload();
  }

  get size(): number {
    return this.revoked.size;
  }

  private remember(jti: string, exp: number): void {
    if (jti.length > 0) this.revoked.set(jti, exp);
  }

  private reload(): Promise<void> {
    this.loaded = false;
    if (this.loading !== null) {
      // A reload is running, but it may have read before what made us ask again.
      this.reloadAgain = true;
      return this.loading;
    }
    this.loading = (async () => {
      try {
        do {
          this.reloadAgain = false;
          const cutoff = new Date(this.clock.now().getTime() - GRACE_SECONDS * 1000);
          for (const { jti, exp } of await this.store.listLive(cutoff)) this.remember(jti, exp);
        } while (this.reloadAgain);
        this.loaded = true;
      } finally {
        this.loading = null;
      }
    })();
    return this.loading;
  }

  private sweep(now: Date): void {
    if (now.getTime() - this.lastSweep < PURGE_EVERY_MS) return;
    this.lastSweep = now.getTime();
    const cutoffSeconds = Math.floor(now.getTime() / 1000) - GRACE_SECONDS;
    for (const [jti, exp] of this.revoked) if (exp < cutoffSeconds) this.revoked.delete(jti);
    void this.store.purge(new Date(cutoffSeconds * 1000)).catch(() => undefined);
  }
}
