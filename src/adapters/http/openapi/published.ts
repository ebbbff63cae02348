import { OPENAPI_FILES, type OpenApiFile } from './documents.js';
import { exampleDayOf } from './examples.js';

/** Renders one published file with its examples relative to `day` (YYYY-MM-DD). */
export type BuildOpenApiFile = (file: OpenApiFile, day: string) => string;

/**
 * The published OpenAPI files, built before the service takes requests and swapped for the next
 * day's by a timer: a request only reads the files built last, never builds them (a build takes
 * 0.3 to 1 s of CPU). The examples' dates follow the day, so a timer looks every
 * `checkEveryMs` whether the day changed and then builds the new files one per turn of the event
 * loop, keeping each pause short, and swaps them in at once.
 */
export class PublishedOpenApiFiles {
  private current: { readonly day: string; readonly files: Readonly<Record<OpenApiFile, string>> };
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly build: BuildOpenApiFile,
    private readonly now: () => Date,
    private readonly checkEveryMs = 60_000,
  ) {
    const day = exampleDayOf(now());
    const files = {} as Record<OpenApiFile, string>;
    for (const file of OPENAPI_FILES) files[file] = build(file, day);
    this.current = { day, files };
  }

  /** The files built last (never built here). */
  files(): Readonly<Record<OpenApiFile, string>> {
    return this.current.files;
  }

  /** The day the served files' examples are relative to. */
  get day(): string {
    return this.current.day;
  }

  /** Starts the timer that swaps in a new day's files; it never holds the process open. */
  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.refresh(), this.checkEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.refreshing;
  }

  /** Builds and swaps in today's files when the served ones are another day's. */
  refresh(): Promise<void> {
    const day = exampleDayOf(this.now());
    if (day === this.current.day) return this.refreshing ?? Promise.resolve();
    this.refreshing ??= (async () => {
      const files = {} as Record<OpenApiFile, string>;
      for (const file of OPENAPI_FILES) {
        await new Promise((resolve) => setImmediate(resolve));
        files[file] = this.build(file, day);
      }
      this.current = { day, files };
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }
}
