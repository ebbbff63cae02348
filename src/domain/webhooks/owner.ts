import type { AgentPrincipal, MachinePrincipal } from '../identity/principal.js';
import { asMachine } from '../identity/wallet-token.js';
import type { EventOwner } from './events.js';

/** Who may manage webhook endpoints: an agent (API key) or a tenant's backend (machine token). */
export type WebhookCaller = AgentPrincipal | MachinePrincipal;

/**
 * The ownership rule of webhook endpoints: a caller's endpoints and deliveries are those of the
 * agent or tenant it authenticated as, and nothing the caller sends can name another owner. A
 * wallet user is not a tenant's backend (`machine-token-required`, as on every machine operation).
 */
export const webhookOwnerOf = (caller: WebhookCaller): EventOwner =>
  caller.kind === 'agent' ? { kind: 'agent', id: caller.agentId } : { kind: 'tenant', id: asMachine(caller).tenantId };
