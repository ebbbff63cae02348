import { DomainError } from '../shared/errors.js';
import type { Product } from './agent.js';
import { isKeyUsable, isWellFormedApiKey } from './api-key.js';
import type { ResolvedKey } from './agent-resolver.port.js';
import type { AgentPrincipal } from './principal.js';
import { decideKeyPolicy, keyPolicyError, type KeyPolicy, type Scope } from './key-policy.js';
import type { IpRange } from './ip-range.js';

/** The first rule of the booking surface: a key must be presented. */
export const requirePresentedKey = (presented: string | undefined): string => {
  if (presented === undefined || presented.trim() === '') {
    throw new DomainError('missing-api-key');
  }
  return presented.trim();
};

/** A key that cannot be one of ours is rejected before any lookup. */
export const checkKeyShape = (presented: string): void => {
  if (!isWellFormedApiKey(presented)) throw invalidKey();
};

/**
 * Turns a resolved key into the caller's identity, or refuses: unknown, revoked and expired keys
 * are all `invalid-api-key` (no hint which); a known key of an agent that is not ACTIVE is
 * `agent-suspended`. Nothing is defaulted.
 */
export const principalFromKey = (resolved: ResolvedKey | null, now: Date): AgentPrincipal => {
  if (resolved === null || !isKeyUsable(resolved.key, now)) throw invalidKey();
  const { key, agent, channel } = resolved;
  if (agent.status !== 'ACTIVE') {
    throw new DomainError('agent-suspended');
  }
  return {
    kind: 'agent',
    agentId: agent.id,
    agentName: agent.name,
    keyId: key.id,
    key: {
      id: key.id,
      prefix: key.prefix,
      createdAt: key.createdAt,
      expiresAt: key.expiresAt,
      scopes: key.scopes,
      allowedIps: key.allowedIps,
    },
    channel,
    entitlements: agent.entitlements,
    discountBps: agent.discountBps,
    livemode: agent.livemode,
  };
};

/** An agent may only use the products its contract entitles it to. */
export const requireEntitlement = (principal: AgentPrincipal, product: Product): void => {
  if (!principal.entitlements.includes(product)) {
    throw new DomainError('not-entitled', { message: `The agent is not entitled to ${product}.` });
  }
};

/**
 * The key policy of the calling key for one request (its scopes, and its allowlist as the edge
 * parsed it): refuses with `ip-not-allowed` or `insufficient-scope` (403). Pure: no query.
 */
export const requireKeyPolicy = (key: KeyPolicy, requiredScope: Scope | null, clientAddress: IpRange | null): void => {
  const decision = decideKeyPolicy(key, requiredScope, clientAddress);
  if (!decision.allowed) throw keyPolicyError(decision);
};

const invalidKey = (): DomainError => new DomainError('invalid-api-key');
