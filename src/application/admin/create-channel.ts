import { DEFAULT_CHANNEL_TERMS } from '../../domain/identity/agent.js';
import type { AgentDirectory } from '../../domain/identity/agent-directory.port.js';
import { DomainError } from '../../domain/shared/errors.js';
import { isCurrencyCode } from '../../domain/shared/money.js';
import { checkMarkup, nameOk } from './agent-directory-rules.js';

const CODE = /^[A-Z0-9][A-Z0-9_-]{0,31}$/;

/** Creates a sales channel with its contracted markup. */
export class CreateChannel {
  constructor(private readonly directory: AgentDirectory) {}

  async execute(input: { code: string; name: string; currency: string; markupBps?: number }): Promise<{ code: string }> {
    const markupBps = input.markupBps ?? 0;
    if (!CODE.test(input.code))
      throw new DomainError('invalid-request', {
        message: 'Channel code must be 1-32 of A-Z, 0-9, _ and -, starting with a letter or digit.',
      });
    if (!nameOk(input.name)) throw new DomainError('invalid-request', { message: 'Channel name must be 1-200 characters.' });
    if (!isCurrencyCode(input.currency))
      throw new DomainError('invalid-request', { message: 'Currency must be an ISO 4217 code such as THB.' });
    checkMarkup(markupBps);
    await this.directory.createChannel({
      code: input.code,
      name: input.name,
      currency: input.currency,
      markupBps,
      ...DEFAULT_CHANNEL_TERMS,
    });
    return { code: input.code };
  }
}
