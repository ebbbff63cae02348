/** A start or stop hook: a step that may finish at once or in a promise. */
type Hook = () => Promise<void> | void;

/**
 * Start and stop hooks of long-lived parts (change feeds, timers, pools), run in order (stops in
 * reverse order of registration); each of `start` and `stop` runs its hooks once, however often
 * it is called.
 */
export class Lifecycle {
  private readonly starts: Hook[] = [];
  private readonly stops: Hook[] = [];
  private started: Promise<void> | null = null;
  private stopped: Promise<void> | null = null;
  private shuttingDown = false;
  private refusingRequests = false;

  onStart(hook: Hook): void {
    this.starts.push(hook);
  }

  /** Stop hooks run in reverse order of registration. */
  onStop(hook: Hook): void {
    this.stops.unshift(hook);
  }

  /** A part's start (null when it has none) and, when given, its stop. */
  add(start: Hook | null, stop?: Hook): void {
    if (start !== null) this.onStart(start);
    if (stop !== undefined) this.onStop(stop);
  }

  /**
   * A timer that runs `tick` every `everyMs` between start and stop, never holding the process
   * open; a tick that fails is told to `onError`, and the next one runs as planned.
   */
  every(everyMs: number, tick: () => Promise<unknown>, onError: (err: unknown) => void): void {
    let timer: NodeJS.Timeout | null = null;
    this.add(
      () => {
        timer = setInterval(() => void tick().catch(onError), everyMs);
        timer.unref();
      },
      () => {
        if (timer !== null) clearInterval(timer);
      },
    );
  }

  start(): Promise<void> {
    this.started ??= (async () => {
      for (const hook of this.starts) await hook();
    })();
    return this.started;
  }

  stop(): Promise<void> {
    this.shuttingDown = true;
    this.stopped ??= (async () => {
      for (const hook of this.stops) {
        try {
          await hook();
        } catch {
          // Keep stopping the rest: a failing hook must not leave the pool open.
        }
      }
    })();
    return this.stopped;
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
