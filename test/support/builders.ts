import type { Product } from '../../src/domain/identity/agent.js';
import type { ApiKeyRecord } from '../../src/domain/identity/api-key.js';
import type { Service } from '../../src/bootstrap/service.js';

import { keyRecordOf, unique } from '../../src/testing/fixtures.js';

export { unique };

export interface TestAgent {
  readonly agentId: string;
  readonly apiKey: string;
  readonly keyId: string;
  readonly channelCode: string;
}

/** Creates a channel, an agent on it and a key, through the operator use cases. */
export async function buildAgent(
  service: Service,
  overrides: {
    channelCode?: string;
    currency?: string;
    markupBps?: number;
    discountBps?: number;
    products?: Product[];
    expiresInDays?: number;
    name?: string;
    /** A sandbox agent (`agent create --test`): its keys are `pbk_test_…`. */
    test?: boolean;
  } = {},
): Promise<TestAgent> {
  const { core, ports } = service;
  const channelCode = overrides.channelCode ?? `CH-${unique()}`;
  if ((await ports.agentDirectory.findChannel(channelCode)) === null) {
    await core.admin.createChannel.execute({
      code: channelCode,
      name: `Channel ${channelCode}`,
      currency: overrides.currency ?? 'THB',
      markupBps: overrides.markupBps ?? 0,
    });
  }
  const agent = await core.admin.createAgent.execute({
    name: overrides.name ?? `Agent ${unique()}`,
    channelCode,
    ...(overrides.products ? { products: overrides.products } : {}),
    discountBps: overrides.discountBps ?? 0,
    livemode: overrides.test !== true,
  });
  const key = await core.admin.issueApiKey.execute({
    agentId: agent.id,
    ...(overrides.expiresInDays === undefined ? {} : { expiresInDays: overrides.expiresInDays }),
  });
  return { agentId: agent.id, apiKey: key.apiKey, keyId: key.keyId, channelCode };
}

/** Issues another key to an agent. */
export async function issueKey(service: Service, agentId: string): Promise<{ apiKey: string; keyId: string }> {
  const key = await service.core.admin.issueApiKey.execute({ agentId });
  return { apiKey: key.apiKey, keyId: key.keyId };
}

/** Polls `check` until it returns true or `ms` pass; returns the elapsed milliseconds or throws. */
export async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An ACTIVE key record with no expiry (for domain-rule tests), with the given fields changed. */
export const keyRecord = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord =>
  keyRecordOf('agt_1', { id: 'key_1', hash: 'h', prefix: 'pbk_abcd', createdAt: new Date('2026-01-01T00:00:00Z'), ...over });
