import type { AgentResolver } from '../../domain/identity/agent-resolver.port.js';
import {
  checkKeyShape,
  principalFromKey,
  requirePresentedKey,
} from '../../domain/identity/authenticate-agent.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import type { SecretHasher } from '../../domain/shared/secrets.port.js';

/** Resolves the `X-API-KEY` header to the calling agent, or throws the contract's reason. */
export class AuthenticateAgent {
  constructor(
    private readonly resolver: AgentResolver,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  async execute(presentedKey: string | undefined): Promise<AgentPrincipal> {
    const key = requirePresentedKey(presentedKey);
    checkKeyShape(key);
    const resolved = await this.resolver.findByKeyHash(this.hasher.hash(key));
    return principalFromKey(resolved, this.clock.now());
  }
}
