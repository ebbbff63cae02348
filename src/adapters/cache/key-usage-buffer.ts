import type { KeyUsageStore, KeyUseRecorder } from '../../domain/identity/key-usage.port.js';

/**
 * Keeps the last use of each key in memory and writes the keys used since the last write in
 * one batch every `flushMs` (and on stop). A request only sets a map entry; a key used a
 * thousand times between two flushes is written once. A failed write keeps its uses for the
 * next one. Uses noted since the last write are lost if the process dies, which only makes
 * `lastUsedAt` older: it is approximate by contract.
 */
export class KeyUsageBuffer implements KeyUseRecorder {
  private pending = new Map<string, Date>();
  /** What this instance noted most recently per key (bounded: forgotten at each flush). */
  private recent = new Map<string, Date>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly store: KeyUsageStore,
    private readonly flushMs: number,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  noteUse(keyId: string, at: Date): void {
    this.pending.set(keyId, at);
  }

  lastNoted(keyId: string): Date | null {
    return this.pending.get(keyId) ?? this.recent.get(keyId) ?? null;
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Writes what was noted since the last write; one write at a time. */
  async flush(): Promise<void> {
    if (this.flushing !== null) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.store.recordUses(batch).then(
      () => {
        this.recent = batch;
      },
      (err: unknown) => {
        // Keep the uses for the next write, unless a newer use of the key was noted since.
        for (const [keyId, at] of batch) if (!this.pending.has(keyId)) this.pending.set(keyId, at);
        this.onError(err);
      },
    );
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
