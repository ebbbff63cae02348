import { DomainError } from '../shared/errors.js';

/** Anything that belongs to one agent. */
export interface AgentOwned {
  readonly agentId: string;
}

/** The ownership rule of the booking surface: an agent sees and acts on its own records only. */
export const isOwnedBy = (record: AgentOwned, agentId: string): boolean => record.agentId === agentId;

/**
 * Returns the record when the agent owns it. Unknown and another agent's records both answer
 * the same `…-not-found`, so nobody learns that someone else's id exists.
 */
export const requireOwned = <T extends AgentOwned>(record: T | null, agentId: string, reason: 'quote-not-found' | 'order-not-found'): T => {
  if (record === null || !isOwnedBy(record, agentId)) {
    throw new DomainError(reason);
  }
  return record;
};
