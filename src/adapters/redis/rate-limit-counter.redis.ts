import type { Redis } from 'ioredis';
import type { FailureCount, LimiterRule, SharedCounter, Verdict } from '../http/rate-limits.js';

/**
 * Adds `ARGV[1]` hits to a fixed window (opened with its first hit, `ARGV[2]` ms long): the
 * window's count after them and the milliseconds left in it. The same keys and values as
 * rate-limit-redis's store (an integer that expires with its window), so instances of either
 * kind count together.
 */
const SETTLE = `
local hits = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {hits, ttl}`;

/** The window's count and the milliseconds left in it; {0, 0} when no window is open. */
const PEEK = `
local hits = redis.call('GET', KEYS[1])
if not hits then return {0, 0} end
return {tonumber(hits), redis.call('PTTL', KEYS[1])}`;

type ScriptedRedis = Redis & {
  pbwRateSettle(key: string, hits: number, windowMs: number): Promise<[number, number]>;
  pbwRatePeek(key: string): Promise<[number, number]>;
};

/** The connection with the two scripts defined on it (once; ioredis sends EVALSHA and reloads on NOSCRIPT). */
function scripted(redis: Redis): ScriptedRedis {
  const r = redis as ScriptedRedis;
  if (typeof r.pbwRateSettle !== 'function') {
    redis.defineCommand('pbwRateSettle', { numberOfKeys: 1, lua: SETTLE });
    redis.defineCommand('pbwRatePeek', { numberOfKeys: 1, lua: PEEK });
  }
  return r;
}

/** How often each instance settles its counts with Redis, at most (ms). */
export const SETTLE_EVERY_MS = 10;

/**
 * Requests an instance may admit per key on its own view before Redis has counted them:
 * a twentieth of the limit, at most 1,000; 0 for a limit under 20 (every request then waits
 * for its count in Redis, so such limits are exact). See docs/scaling.md for the bound this gives.
 */
export const localAllowance = (limit: number): number => Math.min(1000, Math.floor(limit / 20));

interface Waiter {
  resolve(verdict: Verdict | undefined): void;
}

/** This instance's view of one key's window. */
interface Entry {
  /** The window's count in Redis at the last answer (every instance's hits). */
  base: number;
  /** When the window ends (epoch ms), as Redis last said (or as guessed before it answered). */
  resetAt: number;
  /** Hits admitted here that Redis has not yet counted back (sent or not). */
  open: number;
  /** Admitted hits not yet sent. */
  unsent: number;
  /** Requests waiting for Redis to count them, not yet sent. */
  waiting: Waiter[];
  /** Requests waiting, sent. */
  waitingSent: number;
}

/**
 * A limiter's count, shared by every instance through Redis without a round trip per request.
 * Each instance counts each key locally and settles with Redis (one script per key touched, all
 * in one pipeline) every `SETTLE_EVERY_MS`. A request is answered at once from the local view —
 * Redis's last count plus this instance's hits since — while this instance has fewer than
 * `allowance` hits of the key that Redis has not counted back; past that, and for limits too
 * small for any allowance, it waits for the next settlement and is admitted only if its place in
 * Redis's count is within the limit. A key the view already shows at its limit is refused at once,
 * without Redis. While Redis fails, every request waits for it and passes unlimited (as the
 * store-per-request limiter did), and the failure is reported.
 */
export class RedisSharedCounter implements SharedCounter {
  private readonly redis: ScriptedRedis;
  private readonly windowMs: number;
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private down = false;
  private sweepAt: number;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly rule: LimiterRule,
    private readonly onError: (err: unknown) => void,
    private readonly allowance = localAllowance(rule.limit),
    private readonly settleEveryMs = SETTLE_EVERY_MS,
  ) {
    this.redis = scripted(redis);
    this.windowMs = rule.windowSeconds * 1000;
    this.sweepAt = Date.now() + this.windowMs;
  }

  hit(key: string, now: number): Verdict | Promise<Verdict | undefined> {
    let e = this.entries.get(key);
    if (e === undefined) {
      e = { base: 0, resetAt: now + this.windowMs, open: 0, unsent: 0, waiting: [], waitingSent: 0 };
      this.entries.set(key, e);
    } else if (e.resetAt <= now && e.open === 0 && e.waiting.length === 0 && e.waitingSent === 0) {
      // The window Redis told of has ended: a new one opens with this hit.
      e.base = 0;
      e.resetAt = now + this.windowMs;
    }
    const seen = e.base + e.open + e.waiting.length + e.waitingSent;
    if (seen >= this.rule.limit && e.resetAt > now) {
      // Every hit in the view is counted (or will be) in Redis: this one would be past the limit.
      return { allowed: false, hits: seen + 1, resetAt: e.resetAt };
    }
    if (!this.down && e.open < this.allowance) {
      e.open += 1;
      e.unsent += 1;
      this.dirty.add(key);
      this.settleSoon(false);
      return { allowed: true, hits: seen + 1, resetAt: e.resetAt };
    }
    const entry = e;
    return new Promise<Verdict | undefined>((resolve) => {
      entry.waiting.push({ resolve });
      this.dirty.add(key);
      this.settleSoon(true);
    });
  }

  /** Settles now (a request waits), or within `settleEveryMs` (only local hits to send). */
  private settleSoon(now: boolean): void {
    if (now) {
      this.immediate ??= setImmediate(() => {
        this.immediate = null;
        this.settle();
      });
      return;
    }
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.settle();
      }, this.settleEveryMs);
      this.timer.unref();
    }
  }

  /** One script per key touched since the last settlement; ioredis pipelines them (one write). */
  private settle(): void {
    for (const key of this.dirty) {
      const e = this.entries.get(key);
      if (e === undefined) continue;
      const admitted = e.unsent;
      const waiters = e.waiting;
      const n = admitted + waiters.length;
      if (n === 0) continue;
      e.unsent = 0;
      e.waiting = [];
      e.waitingSent += waiters.length;
      this.redis.pbwRateSettle(this.prefix + key, n, this.windowMs).then(
        ([hits, ttl]) => {
          this.down = false;
          e.base = Number(hits);
          e.resetAt = Date.now() + Math.max(0, Number(ttl));
          e.open -= admitted;
          e.waitingSent -= waiters.length;
          // The waiting requests took the last places of this batch.
          const first = e.base - waiters.length + 1;
          waiters.forEach((w, i) => w.resolve({ allowed: first + i <= this.rule.limit, hits: first + i, resetAt: e.resetAt }));
        },
        (err: unknown) => {
          this.down = true;
          e.open -= admitted;
          e.waitingSent -= waiters.length;
          this.onError(err);
          for (const w of waiters) w.resolve(undefined);
        },
      );
    }
    this.dirty.clear();
    this.sweep();
  }

  /** Forgets keys whose window has ended and that have nothing outstanding. */
  private sweep(): void {
    const now = Date.now();
    if (now < this.sweepAt) return;
    this.sweepAt = now + this.windowMs;
    for (const [key, e] of this.entries) {
      if (e.resetAt <= now && e.open === 0 && e.waiting.length === 0 && e.waitingSent === 0) this.entries.delete(key);
    }
  }
}

/** How long an address seen with no failed authentication is taken to still have none (ms). */
export const FAILURES_FRESH_MS = 100;

/**
 * Failed authentications per address in Redis. Every failure is counted in Redis before the
 * request's answer; the check asks Redis every time for an address with failures in the window,
 * so from the first failure on the limit is exact across instances. Only for an address this
 * instance last found with none does it trust that answer for `FAILURES_FRESH_MS`: failures of
 * that address on other instances are seen at most that late. Concurrent checks of one address
 * share one question.
 */
export class RedisFailureCount implements FailureCount {
  private readonly redis: ScriptedRedis;
  private readonly windowMs: number;
  /** When each address was last found with no failure. */
  private readonly clean = new Map<string, number>();
  private readonly asking = new Map<string, Promise<{ hits: number; resetAt: number } | undefined>>();
  private sweepAt = 0;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    rule: LimiterRule,
    private readonly freshMs = FAILURES_FRESH_MS,
  ) {
    this.redis = scripted(redis);
    this.windowMs = rule.windowSeconds * 1000;
  }

  seen(key: string, now: number): { hits: number; resetAt: number } | undefined | Promise<{ hits: number; resetAt: number } | undefined> {
    const at = this.clean.get(key);
    if (at !== undefined && now - at < this.freshMs) {
      // Past half its life the answer is asked again in the background, so that an address in
      // steady use is answered at once and never from an answer older than `freshMs`.
      if (now - at >= this.freshMs / 2 && !this.asking.has(key)) this.ask(key).catch(() => undefined);
      return undefined;
    }
    return this.ask(key);
  }

  /** Asks Redis for the address's count, once for all the checks waiting on it. */
  private ask(key: string): Promise<{ hits: number; resetAt: number } | undefined> {
    const known = this.asking.get(key);
    if (known !== undefined) return known;
    const asked = Date.now();
    const pending: Promise<{ hits: number; resetAt: number } | undefined> = this.redis.pbwRatePeek(this.prefix + key).then(
      ([hits, ttl]) => {
        // A failure counted here meanwhile (`add`) made this answer stale: it is not kept.
        const current = this.asking.get(key) === pending;
        if (current) this.asking.delete(key);
        const count = Number(hits);
        if (count > 0) {
          this.clean.delete(key);
          return { hits: count, resetAt: Date.now() + Math.max(0, Number(ttl)) };
        }
        if (current) this.noteClean(key, asked);
        return undefined;
      },
      (err: unknown) => {
        if (this.asking.get(key) === pending) this.asking.delete(key);
        throw err;
      },
    );
    this.asking.set(key, pending);
    return pending;
  }

  async add(key: string): Promise<void> {
    this.clean.delete(key);
    this.asking.delete(key);
    await this.redis.pbwRateSettle(this.prefix + key, 1, this.windowMs);
  }

  private noteClean(key: string, now: number): void {
    this.clean.set(key, now);
    if (now < this.sweepAt) return;
    this.sweepAt = now + 1000;
    for (const [k, at] of this.clean) if (now - at >= this.freshMs) this.clean.delete(k);
  }
}
