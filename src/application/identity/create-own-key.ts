import { keyViewAt, type KeyView } from '../../domain/identity/api-key.js';
import { checkPolicyHeld, checkScopesHeld, parseAllowedIps, parseScopes } from '../../domain/identity/key-policy.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { apiKeyContext, type RequestOrigin } from '../../domain/security-events/security-event.js';
import { checkKeyName, checkNewKeyExpiry } from './key-fields.js';
import { KeyMint } from './key-mint.js';

/** What a create asks for (`POST /api/v1/keys`). */
export interface CreateKeyInput {
  readonly name: string;
  readonly scopes: readonly string[];
  /** Left out: the calling key's. Empty: anywhere (only from a key usable anywhere). */
  readonly allowedIps?: readonly string[] | undefined;
  /** Left out: the calling key's. Null: never (only from a key that never expires). */
  readonly expiresAt?: Date | null | undefined;
}

/** What a create gives back: the new key's plaintext (shown this once) and its metadata. */
export interface CreatedKey {
  readonly apiKey: string;
  readonly key: KeyView;
}

/**
 * A key makes another key for its agent: with scopes it holds itself (`*` holds them all;
 * otherwise `scope-not-held`), used from within its allowlist and expiring no later than it
 * (left out, they are the caller's; otherwise `policy-not-held` naming the field), within the
 * agent's bound on keys (`too-many-keys`). The new key records the calling key as its creator, so
 * a leak of the caller revokes it too; the store refuses the create (`invalid-api-key`) once the
 * caller is revoked.
 */
export class CreateOwnKey extends KeyMint {
  async execute(principal: AgentPrincipal, input: CreateKeyInput, origin?: RequestOrigin): Promise<CreatedKey> {
    const name = checkKeyName(input.name);
    const scopes = parseScopes(input.scopes);
    const creator = principal.key;
    const held = creator.allowedIps.map((text) => this.ipRanges.parseRange(text));
    const asked = input.allowedIps === undefined ? null : parseAllowedIps(input.allowedIps, this.ipRanges);
    const now = this.clock.now();
    const expiresAt = input.expiresAt === undefined ? creator.expiresAt : checkNewKeyExpiry(input.expiresAt, now);
    checkScopesHeld(creator.scopes, scopes);
    checkPolicyHeld({ allowedIps: held, expiresAt: creator.expiresAt }, { allowedIps: asked, expiresAt });
    const allowedIps = asked === null ? [...creator.allowedIps] : asked.map((r) => r.text);
    const { apiKey, record } = this.mint({
      agentId: principal.agentId,
      createdAt: now,
      expiresAt,
      name,
      scopes,
      allowedIps,
      createdByKeyId: principal.keyId,
      livemode: principal.livemode,
    });
    await this.directory.insertKey(record, apiKeyContext(principal.keyId, origin));
    return { apiKey, key: keyViewAt(record, null, now) };
  }
}
