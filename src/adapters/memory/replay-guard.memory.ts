import type { PurgeableReplayGuard } from '../../domain/identity/replay-guard.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';

/** One-time identifiers in process memory (one instance); expired ones are forgotten as it goes. */
export class MemoryReplayGuard implements PurgeableReplayGuard {
  private readonly used = new Map<string, number>();
  private calls = 0;

  constructor(private readonly clock: Clock) {}

  async useOnce(namespace: string, id: string, expiresAt: Date): Promise<boolean> {
    const now = this.clock.now().getTime();
    // Every so often, drop what has expired, so the map stays bounded by the live identifiers.
    if (++this.calls % 1024 === 0) for (const [k, until] of this.used) if (until <= now) this.used.delete(k);
    const key = `${namespace}\u0000${id}`;
    const until = this.used.get(key);
    if (until !== undefined && until > now) return false;
    this.used.set(key, expiresAt.getTime());
    return true;
  }

  async purge(before: Date, batch: number): Promise<number> {
    let n = 0;
    for (const [k, until] of this.used) {
      if (n >= batch) break;
      if (until < before.getTime()) n += Number(this.used.delete(k));
    }
    return n;
  }
}
