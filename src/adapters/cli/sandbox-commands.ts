import type { ServiceCommand } from './admin.js';
import { required } from './command.js';

/** The sandbox's credentials for a person: each shown this once. */
const sandboxText = (r: Record<string, unknown>): string => {
  const s = r as {
    name: string;
    agent: { agentId: string; apiKey: string; funds: number };
    tenant: { clientId: string; clientSecret: string; user: { email: string; password: string } };
    operator: { code: string; apiKey: string; scheduleId: string | null };
  };
  return [
    `Sandbox "${s.name}" (test mode: nothing here meets live data; shown this once, only hashes are stored):`,
    `  booking API key (X-API-KEY):   ${s.agent.apiKey}   agent ${s.agent.agentId}, prepaid, ${s.agent.funds} minor units of sandbox money`,
    `  wallet OAuth client:           ${s.tenant.clientId} / ${s.tenant.clientSecret}`,
    `  wallet user:                   ${s.tenant.user.email} / ${s.tenant.user.password}`,
    `  operator key (/operator/v1/):  ${s.operator.apiKey}   operator ${s.operator.code}, on-request` +
      (s.operator.scheduleId === null ? '' : `, runs ${s.operator.scheduleId}`),
  ].join('\n');
};

/** `sandbox create`: test owners of both surfaces at once (CONTRACT §6.7). */
export const SANDBOX_COMMANDS: readonly ServiceCommand[] = [
  {
    name: 'sandbox create',
    summary: 'make a sandbox: a funded test agent with a key, a test tenant with a user, a test on-request operator with a key',
    flags: {
      name: { value: 'N', required: true, description: 'the sandbox name, 1-100 characters (the agent and tenant are named after it)' },
    },
    run: async (v, u) => ({ ...(await u.createSandbox.execute({ name: required(v, 'name') })) }),
    output: sandboxText,
    note: 'the keys, the client secret and the password are shown this once (only their hashes are stored): store them now.',
  },
];
