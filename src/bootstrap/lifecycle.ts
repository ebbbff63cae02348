/** Start and stop hooks of long-lived parts (change feeds, timers, pools), run in order. */
export class Lifecycle {
  private readonly starts: Array<() => Promise<void>> = [];
  private readonly stops: Array<() => Promise<void>> = [];
  private shuttingDown = false;
  private refusingRequests = false;

  onStart(hook: () => Promise<void>): void {
    this.starts.push(hook);
  }

  /** Stop hooks run in reverse order of registration. */
  onStop(hook: () => Promise<void>): void {
    this.stops.unshift(hook);
  }

  async start(): Promise<void> {
    for (const hook of this.starts) await hook();
  }

  async stop(): Promise<void> {
    this.shuttingDown = true;
    for (const hook of this.stops) {
      try {
        await hook();
      } catch {
        // Keep stopping the rest: a failing hook must not leave the pool open.
      }
    }
  }

  get accepting(): boolean {
    return !this.shuttingDown;
  }

  /** Marks the service as leaving, so readiness fails before anything closes. */
  beginShutdown(): void {
    this.shuttingDown = true;
  }

  /** True once the stopping service takes no new work: every new request is refused. */
  get refusing(): boolean {
    return this.refusingRequests;
  }

  /** From now on new requests are answered 503 `shutting-down` (the requests in flight finish). */
  refuseRequests(): void {
    this.shuttingDown = true;
    this.refusingRequests = true;
  }
}
