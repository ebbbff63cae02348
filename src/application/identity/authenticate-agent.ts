import type { AgentResolver } from '../../domain/identity/agent-resolver.port.js';
import { checkKeyShape, principalFromKey, requirePresentedKey } from '../../domain/identity/authenticate-agent.js';
import type { KeyUseRecorder } from '../../domain/identity/key-usage.port.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { SecretHasher } from '../../domain/shared/secrets.port.js';

/** Resolves the `X-API-KEY` header to the calling agent, or throws the contract's reason. */
export class AuthenticateAgent {
  constructor(
    private readonly resolver: AgentResolver,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
    private readonly usage?: KeyUseRecorder,
  ) {}

  async execute(presentedKey: string | undefined): Promise<AgentPrincipal> {
    const key = requirePresentedKey(presentedKey);
    checkKeyShape(key);
    const resolved = await this.resolver.findByKeyHash(this.hasher.hash(key));
    const now = this.clock.now();
    const principal = principalFromKey(resolved, now);
    this.usage?.noteUse(principal.keyId, now);
    return principal;
  }
}
