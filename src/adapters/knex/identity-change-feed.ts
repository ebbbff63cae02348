import pg from 'pg';
import type { Logger } from 'pino';
import { SESSION_TIMEOUTS, type Database } from './database.js';
import { IDENTITY_CHANNEL } from './migrations/0001-identity-catalogue.js';

/**
 * Called with the table a notification names, or null when anything may have changed (the
 * feed (re)connected after a time in which notifications could have been missed). A payload
 * `table:detail` names the table and what changed in it (a revoked token); `detail` is null
 * for a plain table name.
 */
export type IdentityChangeListener = (table: string | null, detail: string | null) => void;

/**
 * Delivers the database's identity-change notifications (the trigger sends the changed table's
 * name) to every subscriber. On PostgreSQL it holds one dedicated LISTEN connection (outside
 * the pool); on PGlite it uses the engine's own listener. `trusted` is false whenever a
 * notification could have been missed, and subscribers hear `null` again on every reconnect,
 * so a cache fed by it is never stale for long.
 */
export class IdentityChangeFeed {
  private readonly listeners = new Set<IdentityChangeListener>();
  private client: pg.Client | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private connected = false;

  constructor(
    private readonly db: Database,
    private readonly log?: Logger,
  ) {}

  /**
   * Calls `onChange` whenever one of `tables` is announced, and whenever anything may have been
   * missed (a reconnect). Returns the function that unsubscribes.
   */
  subscribe(tables: ReadonlySet<string>, onChange: (detail: string | null) => void): () => void {
    const listener: IdentityChangeListener = (table, detail) => {
      if (table === null) onChange(null);
      else if (tables.has(table)) onChange(detail);
    };
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private onChange(payload: string | null): void {
    const sep = payload === null ? -1 : payload.indexOf(':');
    const table = payload === null ? null : sep < 0 ? payload : payload.slice(0, sep);
    const detail = payload === null || sep < 0 ? null : payload.slice(sep + 1);
    for (const listener of this.listeners) listener(table, detail);
  }

  get trusted(): boolean {
    return this.connected;
  }

  async start(): Promise<void> {
    if (this.db.pglite !== null) {
      this.unlisten = await this.db.pglite.listen(IDENTITY_CHANNEL, (payload) => this.onChange(payload || null));
      this.connected = true;
      return;
    }
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.db.target.kind !== 'postgres') return;
    const client = new pg.Client({
      connectionString: this.db.target.url,
      connectionTimeoutMillis: SESSION_TIMEOUTS.connectionTimeoutMillis,
      application_name: 'partner-booking-wallet:listen',
      keepAlive: true,
    });
    const lost = (err?: Error): void => {
      if (this.client !== client) return;
      this.connected = false;
      this.client = null;
      this.onChange(null);
      if (!this.stopped) {
        this.log?.warn({ err: err?.message }, 'identity change feed lost; key cache bypassed until it reconnects');
        this.scheduleReconnect();
      }
      client.end().catch(() => undefined);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => this.onChange(n.payload || null));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${IDENTITY_CHANNEL}`);
      // Anything may have changed while we were not listening.
      this.onChange(null);
      this.connected = true;
    } catch (err) {
      lost(err as Error);
    }
  }

  private scheduleReconnect(): void {
    if (this.retryTimer !== null || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, 500);
    this.retryTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.connected = false;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    if (this.unlisten !== null) await this.unlisten().catch(() => undefined);
    const client = this.client;
    this.client = null;
    if (client !== null) await client.end().catch(() => undefined);
  }
}
