import type { KeyPolicyDecision } from '../../domain/identity/key-policy.js';
import type { AgentPrincipal } from '../../domain/identity/principal.js';
import { apiKeyContext, apiKeyRefusedEvent, type RequestOrigin } from '../../domain/security-events/security-event.js';
import type { SecurityEvents } from '../../domain/security-events/security-events.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';

/**
 * Records that a usable key was refused by its policy (`api_key.refused`), at most once per key,
 * reason and minute (storage keeps the first of a minute). Called by the transport when
 * `decideKeyPolicy` refuses, before it answers 403; a failure to record never changes the answer.
 */
export class RecordKeyRefusal {
  constructor(
    private readonly events: SecurityEvents,
    private readonly clock: Clock,
  ) {}

  /** Returns whether this refusal was recorded (false: one like it is already recorded this minute). */
  async execute(
    principal: AgentPrincipal,
    decision: Exclude<KeyPolicyDecision, { allowed: true }>,
    origin?: RequestOrigin,
  ): Promise<boolean> {
    const refusal =
      decision.reason === 'insufficient-scope'
        ? { reason: decision.reason, requiredScope: decision.requiredScope }
        : { reason: decision.reason };
    return this.events.append(
      apiKeyRefusedEvent(
        { id: principal.keyId, agentId: principal.agentId },
        refusal,
        apiKeyContext(principal.keyId, origin),
        this.clock.now(),
      ),
    );
  }
}
