/** A fan-out of "something changed" to in-process subscribers. */
export class ChangeSignal {
  private readonly listeners = new Set<() => void>();

  /** Subscribes; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(): void {
    for (const listener of this.listeners) listener();
  }
}
