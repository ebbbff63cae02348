import type { Knex } from 'knex';
import { orderOf, type OrderRow } from './booking-rows.js';
import { orderChanged } from '../../domain/webhooks/events.js';
import type { Agent, AgentStatus, Channel } from '../../domain/identity/agent.js';
import type { AgentDirectory, ChannelChanges, KeyWithUsage, NewAgent, RevokedKeys } from '../../domain/identity/agent-directory.port.js';
import { requireLineageWriter, type ApiKeyRecord, type RevokedReason } from '../../domain/identity/api-key.js';
import { keyAddition, keyRevocation, keyRoll, leakReportEvents, type KeyRevocation } from '../../domain/identity/key-changes.js';
import { DomainError } from '../../domain/shared/errors.js';
import { isUniqueViolation, isForeignKeyViolation } from './pg-errors.js';
import { recordEvents } from './outbox.knex.js';
import type { SecurityContext } from '../../domain/security-events/security-event.js';
import { recordSecurityEvents } from './security-events.knex.js';
import { KEY_COLUMNS, keyToRow, toAgent, toChannel, toKey, type AgentRow, type ChannelRow, type KeyRow } from './identity-rows.js';
import { KnexStore } from './knex-store.js';

/** Operator writes on PostgreSQL; triggers announce each change to every instance. */
export class KnexAgentDirectory extends KnexStore implements AgentDirectory {
  /**
   * `changed` is called after every committed write, so this instance's own cache forgets at
   * once instead of waiting for the database's notification to come back.
   */
  constructor(
    pool: Knex,
    private readonly changed: () => void = () => undefined,
  ) {
    super(pool);
  }

  async createChannel(channel: Channel): Promise<void> {
    try {
      await this.knex('channels').insert({
        code: channel.code,
        name: channel.name,
        currency: channel.currency,
        markup_bps: channel.markupBps,
        free_cancellation_hours: channel.freeCancellationHours,
        late_cancellation_fee_bps: channel.lateCancellationFeeBps,
        max_hold_minutes: channel.maxHoldMinutes,
      });
      this.changed();
    } catch (err) {
      if (isUniqueViolation(err)) throw new DomainError('channel-exists');
      throw err;
    }
  }

  async findChannel(code: string): Promise<Channel | null> {
    const row = await this.knex<ChannelRow>('channels').where({ code }).first();
    return row === undefined ? null : toChannel(row);
  }

  async listChannels(): Promise<Channel[]> {
    const rows = await this.knex<ChannelRow>('channels').orderByRaw('code COLLATE "C"');
    return rows.map(toChannel);
  }

  async updateChannel(code: string, changes: ChannelChanges): Promise<Channel | null> {
    const set: Partial<ChannelRow> = {};
    if (changes.markupBps !== undefined) set.markup_bps = changes.markupBps;
    if (changes.freeCancellationHours !== undefined) set.free_cancellation_hours = changes.freeCancellationHours;
    if (changes.lateCancellationFeeBps !== undefined) set.late_cancellation_fee_bps = changes.lateCancellationFeeBps;
    if (changes.maxHoldMinutes !== undefined) set.max_hold_minutes = changes.maxHoldMinutes;
    if (Object.keys(set).length === 0) return this.findChannel(code);
    const [row] = await this.knex<ChannelRow>('channels').where({ code }).update(set).returning('*');
    this.changed();
    return row === undefined ? null : toChannel(row as ChannelRow);
  }

  async createAgent(agent: NewAgent): Promise<Agent> {
    try {
      const [row] = await this.knex<AgentRow>('agents')
        .insert({
          id: agent.id,
          name: agent.name,
          status: 'ACTIVE',
          channel_code: agent.channelCode,
          entitlements: [...agent.entitlements],
          discount_bps: agent.discountBps,
          created_at: agent.createdAt,
          livemode: agent.livemode ?? true,
        })
        .returning('*');
      this.changed();
      return toAgent(row as AgentRow);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new DomainError('channel-not-found');
      throw err;
    }
  }

  async findAgent(agentId: string): Promise<Agent | null> {
    const row = await this.knex<AgentRow>('agents').where({ id: agentId }).first();
    return row === undefined ? null : toAgent(row);
  }

  async findAgentsByChannel(channelCode: string): Promise<Agent[]> {
    const rows = await this.knex<AgentRow>('agents')
      .where({ channel_code: channelCode })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toAgent);
  }

  async listAgents(): Promise<Agent[]> {
    const rows = await this.knex<AgentRow>('agents').orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toAgent);
  }

  async setAgentChannel(agentId: string, channelCode: string): Promise<Agent | null> {
    try {
      const [row] = await this.knex<AgentRow>('agents')
        .where({ id: agentId })
        .update({ channel_code: channelCode, updated_at: this.knex.fn.now() } as Partial<AgentRow>)
        .returning('*');
      this.changed();
      return row === undefined ? null : toAgent(row as AgentRow);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new DomainError('channel-not-found');
      throw err;
    }
  }

  async setAgentStatus(agentId: string, status: AgentStatus): Promise<Agent | null> {
    const [row] = await this.knex<AgentRow>('agents')
      .where({ id: agentId })
      .update({ status, updated_at: this.knex.fn.now() } as Partial<AgentRow>)
      .returning('*');
    this.changed();
    return row === undefined ? null : toAgent(row as AgentRow);
  }

  async insertKey(key: ApiKeyRecord, context?: SecurityContext): Promise<void> {
    await this.knex.transaction(async (trx) => {
      const live = await liveKeysLocked(trx, key.agentId, key.createdAt);
      // A key made by a key: its creator read again under a lock its leak report's walk needs.
      const creator = key.createdByKeyId === null ? null : await keyLocked(trx, key.createdByKeyId, 'share');
      const recorded = keyAddition(key, live, creator, context);
      await trx<KeyRow>('api_keys').insert(keyToRow(key));
      await recordSecurityEvents(trx, recorded);
    });
    this.changed();
  }

  async findKey(keyId: string): Promise<ApiKeyRecord | null> {
    const row = await this.knex<KeyRow>('api_keys')
      .where({ id: keyId })
      .first(...KEY_COLUMNS);
    return row === undefined ? null : toKey(row);
  }

  async listKeys(agentId: string): Promise<KeyWithUsage[]> {
    const rows = (await this.knex('api_keys as k')
      .leftJoin('api_key_usage as u', 'u.key_id', 'k.id')
      .where('k.agent_id', agentId)
      .orderBy([{ column: 'k.created_at' }, { column: 'k.id' }])
      .select(...KEY_COLUMNS.map((c) => `k.${c}`), 'u.last_used_at')) as Array<KeyRow & { last_used_at: Date | null }>;
    return rows.map((row) => ({ key: toKey(row), lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at) }));
  }

  async rollKey(fromKeyId: string, next: ApiKeyRecord, until: Date, context?: SecurityContext): Promise<ApiKeyRecord | null> {
    const rolled = await this.knex.transaction(async (trx) => {
      // The agent's lock first (as every add takes it), then the key's row: of two rolls of one
      // key, one finds it ACTIVE; a roll after its leak report finds it revoked and is refused.
      const live = await liveKeysLocked(trx, next.agentId, next.createdAt);
      const roll = keyRoll(await keyLocked(trx, fromKeyId, 'update'), next, until, live, context);
      if (roll === null) return null;
      await storeRevocation(trx, roll.rotated);
      await trx('api_keys').insert(keyToRow(roll.made));
      await recordSecurityEvents(trx, roll.securityEvents);
      return roll.made;
    });
    if (rolled === null) return null;
    this.changed();
    return rolled;
  }

  async revokeKey(keyId: string, reason: RevokedReason, at: Date, context?: SecurityContext): Promise<RevokedKeys | null> {
    const result = await this.knex.transaction(async (trx) => {
      const [root] = await revokeLocked(trx, [keyId], reason, at, context);
      if (root === undefined) return null;
      const rolled: ApiKeyRecord[] = [];
      if (reason === 'leaked') {
        // Breadth first down the lineage (rolls and creations). Each level is read after the
        // level above was locked and revoked, so a roll or create that raced with this one is
        // seen at the next level (and one that comes after finds its key revoked).
        const seen = new Set([keyId]);
        for (let parents = [keyId]; parents.length > 0;) {
          const children = (await trx('api_keys')
            .whereIn('rolled_from_key_id', parents)
            .orWhereIn('created_by_key_id', parents)
            .orderBy('id')
            .pluck('id')) as string[];
          const fresh = children.filter((id) => !seen.has(id));
          for (const id of fresh) seen.add(id);
          rolled.push(...(await revokeLocked(trx, fresh, reason, at, context)).map((r) => r.after));
          parents = fresh;
        }
        await releaseHoldsOf(trx, [keyId, ...rolled.map((k) => k.id)], at);
        await recordSecurityEvents(trx, leakReportEvents(root, rolled, at, context));
      }
      return { key: root.after, rolled };
    });
    this.changed();
    return result;
  }

  async revokeCreatedKey(creatorKeyId: string, keyId: string, at: Date, context?: SecurityContext): Promise<ApiKeyRecord | null> {
    const result = await this.knex.transaction(async (trx) => {
      requireLineageWriter(await keyLocked(trx, creatorKeyId, 'share'), at);
      const made = new Set<string>();
      let parents = (await trx('api_keys').where({ created_by_key_id: creatorKeyId }).pluck('id')) as string[];
      while (parents.length > 0 && !made.has(keyId)) {
        for (const id of parents) made.add(id);
        const children = (await trx('api_keys')
          .whereIn('rolled_from_key_id', parents)
          .orWhereIn('created_by_key_id', parents)
          .pluck('id')) as string[];
        parents = children.filter((id) => !made.has(id) && id !== creatorKeyId);
      }
      if (!made.has(keyId)) return null;
      const [revoked] = await revokeLocked(trx, [keyId], 'revoked', at, context);
      return revoked?.after ?? null;
    });
    if (result !== null) this.changed();
    return result;
  }
}

/**
 * Takes the agent's row lock for the rest of the transaction and returns its keys that may still
 * authenticate at `now` (a superset the bound's rule then counts): every add of a key (issue,
 * roll) takes this lock before counting, so two adds for one agent run one after the other and
 * the second counts the first's key. `FOR NO KEY UPDATE` does not wait for the key-share locks
 * that inserting a key (its foreign key) or placing an order takes on the agent's row.
 */
async function liveKeysLocked(trx: Knex.Transaction, agentId: string, now: Date): Promise<ApiKeyRecord[]> {
  await trx('agents').where({ id: agentId }).forNoKeyUpdate().select('id');
  const rows = (await trx('api_keys')
    .where({ agent_id: agentId })
    .andWhere((q) => q.where({ status: 'ACTIVE' }).orWhere('revoked_at', '>', now))
    .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
    .select(...KEY_COLUMNS)) as KeyRow[];
  return rows.map(toKey);
}

/**
 * One key read under its row lock, or null. The lock order of every write a key makes on its own
 * lineage is: the agent's row (adds only), then the writing key's row, then keys below it. A leak
 * report's walk takes the keys' row locks `FOR UPDATE`, top down, and never the agent's, so a
 * write holding its key's lock is waited for by the walk (which then reads what the write made),
 * and a write arriving after the walk locked its key waits and finds it revoked.
 */
async function keyLocked(trx: Knex.Transaction, keyId: string, mode: 'share' | 'update'): Promise<ApiKeyRecord | null> {
  const query = trx<KeyRow>('api_keys').where({ id: keyId });
  const row = (await (mode === 'share' ? query.forShare() : query.forUpdate()).first(...KEY_COLUMNS)) as KeyRow | undefined;
  return row === undefined ? null : toKey(row);
}

/**
 * Locks the keys (in id order), applies the revocation rule to each, stores them (recording the
 * changes in the webhook outbox and the trail) and returns each revocation.
 */
async function revokeLocked(
  trx: Knex.Transaction,
  ids: readonly string[],
  reason: RevokedReason,
  at: Date,
  context: SecurityContext | undefined,
): Promise<KeyRevocation[]> {
  if (ids.length === 0) return [];
  const rows = (await trx('api_keys')
    .whereIn('id', ids)
    .orderBy('id')
    .forUpdate()
    .select(...KEY_COLUMNS)) as KeyRow[];
  const revoked: KeyRevocation[] = [];
  for (const row of rows) {
    const revocation = keyRevocation(toKey(row), reason, at, context);
    if (revocation.after !== revocation.before) {
      await storeRevocation(trx, revocation.after);
      await recordEvents(trx, revocation.events);
      await recordSecurityEvents(trx, revocation.securityEvents);
    }
    revoked.push(revocation);
  }
  return revoked;
}

/** Stores a key's revocation (its status, reason and when it takes effect). */
async function storeRevocation(trx: Knex.Transaction, key: ApiKeyRecord): Promise<void> {
  await trx('api_keys').where({ id: key.id }).update({ status: key.status, revoked_reason: key.revokedReason, revoked_at: key.revokedAt });
}

/**
 * Releases, in the leak report's transaction, every order still on hold at `at` that one of the
 * leaked keys made (reason `key-leaked`), with its `order.released` event: what was held with a
 * stolen key is given back at once. The keys are locked already; the orders are locked after them.
 */
async function releaseHoldsOf(trx: Knex.Transaction, keyIds: readonly string[], at: Date): Promise<void> {
  const held = (await trx('orders')
    .whereIn('key_id', keyIds)
    .andWhere('status', 'ON_HOLD')
    .andWhere('hold_expires_at', '>', at)
    .orderBy('id')
    .forUpdate()
    .select('*')) as OrderRow[];
  if (held.length === 0) return;
  await trx('orders')
    .whereIn(
      'id',
      held.map((r) => r.id),
    )
    .update({ status: 'RELEASED', release_reason: 'key-leaked' });
  // Their prices are given back with them (the holds of the agents' accounts, CONTRACT §6.4).
  await trx.raw(
    `UPDATE pending_transfers SET status = 'VOIDED', resolved_at = ? WHERE owner_kind = 'order' AND owner_id = ANY (?::text[]) AND status = 'PENDING'`,
    [at, held.map((r) => r.id)],
  );
  await recordEvents(
    trx,
    held.map((r) => orderChanged({ ...orderOf(r), status: 'RELEASED', releaseReason: 'key-leaked' }, 'ON_HOLD', at)),
  );
}
