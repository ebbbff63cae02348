import type { AgentPrincipal, MachinePrincipal } from '../../domain/identity/principal.js';
import { SECURITY_EVENT_TYPES, type SecurityEvent, type SecurityEventType } from '../../domain/security-events/security-event.js';
import type { SecurityEvents } from '../../domain/security-events/security-events.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { pageRequest, type Page, type PageQuery } from '../../domain/shared/page.js';
import type { EventOwner } from '../../domain/webhooks/events.js';

/** The filters of a listing, as a caller sends them (`type` comma-separated on the wire, a list here). */
export interface SecurityEventFilter extends PageQuery {
  readonly types?: readonly string[] | undefined;
  readonly since?: Date | undefined;
  readonly until?: Date | undefined;
}

/** Whose trail a caller reads: an agent's key reads its agent's, a machine token its tenant's. */
export const trailOwnerOf = (principal: AgentPrincipal | MachinePrincipal): EventOwner =>
  principal.kind === 'agent' ? { kind: 'agent', id: principal.agentId } : { kind: 'tenant', id: principal.tenantId };

/**
 * Lists one owner's security events, newest first, paginated like every list (limit 1..100,
 * default 20). Unknown types, a bad cursor or a bad limit are `invalid-request`.
 */
export class ListSecurityEvents {
  constructor(private readonly events: SecurityEvents) {}

  /** For an API caller: its own trail. */
  forCaller(principal: AgentPrincipal | MachinePrincipal, filter: SecurityEventFilter): Promise<Page<SecurityEvent>> {
    return this.execute(trailOwnerOf(principal), filter);
  }

  /** For the operator (any owner). */
  async execute(owner: EventOwner, filter: SecurityEventFilter): Promise<Page<SecurityEvent>> {
    const page = pageRequest(filter);
    const types = (filter.types ?? []).map((t) => t.trim()).filter((t) => t !== '');
    const unknown = types.filter((t) => !(SECURITY_EVENT_TYPES as readonly string[]).includes(t));
    if (unknown.length > 0) {
      throw new DomainError('invalid-request', {
        message: `Unknown event type ${unknown.join(', ')}.`,
        details: { errors: [{ path: 'type', message: `must be among ${SECURITY_EVENT_TYPES.join(', ')}` }] },
      });
    }
    for (const [path, at] of [
      ['since', filter.since],
      ['until', filter.until],
    ] as const) {
      if (at !== undefined && Number.isNaN(at.getTime())) {
        throw new DomainError('invalid-request', {
          message: `${path} is not a time.`,
          details: { errors: [{ path, message: 'must be RFC 3339' }] },
        });
      }
    }
    return this.events.list({ owner, types: types as SecurityEventType[], since: filter.since ?? null, until: filter.until ?? null, page });
  }
}
