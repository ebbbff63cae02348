import type { Channel } from '../../domain/identity/agent.js';
import type { AgentDirectory, ChannelChanges } from '../../domain/identity/agent-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { MAX_HOLD_MINUTES_RANGE } from '../../domain/booking/order-transitions.js';
import { MAX_BPS, checkMarkup } from './agent-directory-rules.js';

/** Changes a channel's markup, cancellation terms and longest hold; every instance prices with them within a second. */
export class UpdateChannel {
  constructor(private readonly directory: AgentDirectory) {}

  async execute(code: string, changes: ChannelChanges): Promise<Channel> {
    if (changes.markupBps !== undefined) checkMarkup(changes.markupBps);
    const hours = changes.freeCancellationHours;
    if (hours !== undefined && (!Number.isInteger(hours) || hours < 0 || hours > MAX_FREE_CANCELLATION_HOURS)) {
      throw new DomainError('invalid-request', {
        message: `Free cancellation must be a whole number of hours from 0 to ${MAX_FREE_CANCELLATION_HOURS}.`,
      });
    }
    const fee = changes.lateCancellationFeeBps;
    if (fee !== undefined && (!Number.isInteger(fee) || fee < 0 || fee > MAX_BPS)) {
      throw new DomainError('invalid-request', {
        message: 'The late cancellation fee must be an integer number of basis points between 0 and 10000.',
      });
    }
    const hold = changes.maxHoldMinutes;
    if (hold !== undefined && (!Number.isInteger(hold) || hold < MAX_HOLD_MINUTES_RANGE.min || hold > MAX_HOLD_MINUTES_RANGE.max)) {
      throw new DomainError('invalid-request', {
        message: `The longest hold must be a whole number of minutes from ${MAX_HOLD_MINUTES_RANGE.min} to ${MAX_HOLD_MINUTES_RANGE.max}.`,
      });
    }
    const channel = await this.directory.updateChannel(code, changes);
    if (channel === null) throw new DomainError('channel-not-found');
    return channel;
  }
}

const MAX_FREE_CANCELLATION_HOURS = 8760;
