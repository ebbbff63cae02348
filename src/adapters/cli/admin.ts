import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DomainError } from '../../domain/shared/errors.js';
import { REVOKED_REASONS } from '../../domain/identity/api-key.js';
import type { CreateAgent, CreateChannel, SetAgentStatus } from '../../application/admin/manage-agents.js';
import type { IssueApiKey, RevokeApiKey } from '../../application/admin/manage-keys.js';
import type { SeedCatalogue } from '../../application/catalogue/seed-catalogue.js';
import type { SeedDemo } from '../../application/admin/seed-demo.js';
import type {
  CreateTenant,
  ListTenants,
  ListTenantUsers,
  RotateClientSecret,
  RotateSigningKey,
  SetWalletUserDisabled,
} from '../../application/admin/manage-tenants.js';
import type { CreateWalletUser } from '../../application/wallet/manage-wallet-users.js';

/** The use cases the admin commands drive, resolved lazily so a command builds only what it uses. */
export interface AdminUseCases {
  readonly seedCatalogue: SeedCatalogue;
  readonly createChannel: CreateChannel;
  readonly createAgent: CreateAgent;
  readonly setAgentStatus: SetAgentStatus;
  readonly issueApiKey: IssueApiKey;
  readonly revokeApiKey: RevokeApiKey;
  readonly seedDemo: SeedDemo;
  readonly createTenant: CreateTenant;
  readonly createWalletUser: CreateWalletUser;
  readonly rotateSigningKey: RotateSigningKey;
  readonly listTenants: ListTenants;
  readonly rotateClientSecret: RotateClientSecret;
  readonly listTenantUsers: ListTenantUsers;
  readonly setWalletUserDisabled: SetWalletUserDisabled;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

/** One admin command: its flags, what it does and how it reads for a person. */
export interface AdminCommand<U = AdminUseCases> {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly options: Options;
  run(values: Values, useCases: U): Promise<Record<string, unknown>>;
  text?(result: Record<string, unknown>): string;
}

/** A mistake in how the command was called (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A string flag. */
export const str = { type: 'string' } as const;

/** The value of a flag that must be given, or a usage error. */
export const required = (values: Values, flag: string): string => {
  const v = values[flag];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${flag} is required`);
  return v;
};

/** The value of a string flag, if given. */
export const optional = (values: Values, flag: string): string | undefined => {
  const v = values[flag];
  return typeof v === 'string' ? v : undefined;
};

/** The value of a whole-number flag, if given; anything else is a usage error. */
export const optionalInt = (values: Values, flag: string): number | undefined => {
  const v = values[flag];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) throw new UsageError(`--${flag} must be a whole number`);
  return Number.parseInt(v, 10);
};

/** The booking-side commands of the contract. */
export const BOOKING_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'catalogue seed',
    summary: 'load the shipped demo catalogue (idempotent)',
    usage: 'catalogue seed',
    options: {},
    run: async (_v, u) => ({ ...(await u.seedCatalogue.execute()) }),
    text: (r) => `catalogue: ${String(r.locations)} locations, ${String(r.cities)} cities, ${String(r.schedules)} schedules`,
  },
  {
    name: 'channel create',
    summary: 'create a sales channel',
    usage: 'channel create --code C --name N --currency CUR [--markup-bps N]',
    options: { code: str, name: str, currency: str, 'markup-bps': str },
    run: async (v, u) => {
      const markupBps = optionalInt(v, 'markup-bps');
      return u.createChannel.execute({
        code: required(v, 'code'),
        name: required(v, 'name'),
        currency: required(v, 'currency'),
        ...(markupBps === undefined ? {} : { markupBps }),
      });
    },
    text: (r) => `channel ${String(r.code)} created`,
  },
  {
    name: 'agent create',
    summary: 'create an agent under a channel',
    usage: 'agent create --name N --channel C [--products airport-transfer,express-bus] [--discount-bps N]',
    options: { name: str, channel: str, products: str, 'discount-bps': str },
    run: async (v, u) => {
      const discountBps = optionalInt(v, 'discount-bps');
      const products = typeof v.products === 'string' ? v.products.split(',').map((p) => p.trim()).filter(Boolean) : undefined;
      const agent = await u.createAgent.execute({
        name: required(v, 'name'),
        channelCode: required(v, 'channel'),
        ...(products === undefined ? {} : { products }),
        ...(discountBps === undefined ? {} : { discountBps }),
      });
      return { agentId: agent.id };
    },
    text: (r) => `agent ${String(r.agentId)} created`,
  },
  ...(['suspend', 'activate'] as const).map(
    (verb): AdminCommand => ({
      name: `agent ${verb}`,
      summary: verb === 'suspend' ? 'suspend an agent (its keys stop working)' : 're-activate an agent',
      usage: `agent ${verb} --agent ID`,
      options: { agent: str },
      run: async (v, u) => {
        const agent = await u.setAgentStatus.execute(required(v, 'agent'), verb === 'suspend' ? 'SUSPENDED' : 'ACTIVE');
        return { agentId: agent.id, status: agent.status };
      },
      text: (r) => `agent ${String(r.agentId)} is ${String(r.status)}`,
    }),
  ),
  {
    name: 'key issue',
    summary: 'issue an API key to an agent (shown once)',
    usage: 'key issue --agent ID [--expires-in-days N]',
    options: { agent: str, 'expires-in-days': str },
    run: async (v, u) => {
      const days = optionalInt(v, 'expires-in-days');
      const issued = await u.issueApiKey.execute({ agentId: required(v, 'agent'), ...(days === undefined ? {} : { expiresInDays: days }) });
      return { keyId: issued.keyId, apiKey: issued.apiKey };
    },
    text: (r) => `key ${String(r.keyId)} issued. Store it now, it is not shown again:\n${String(r.apiKey)}`,
  },
  {
    name: 'key revoke',
    summary: 'revoke an API key; --leaked also blocks cancelling its bookings',
    usage: `key revoke --key ID [--leaked] [--reason ${REVOKED_REASONS.join('|')}]`,
    options: { key: str, leaked: { type: 'boolean' }, reason: str },
    run: async (v, u) => {
      const reasonFlag = v.reason;
      if (reasonFlag !== undefined && !(REVOKED_REASONS as readonly unknown[]).includes(reasonFlag)) {
        throw new UsageError(`--reason must be one of ${REVOKED_REASONS.join(', ')}`);
      }
      if (v.leaked === true && reasonFlag !== undefined && reasonFlag !== 'leaked') {
        throw new UsageError('--leaked and --reason disagree');
      }
      const reason = v.leaked === true ? 'leaked' : ((reasonFlag as (typeof REVOKED_REASONS)[number] | undefined) ?? 'operator');
      const key = await u.revokeApiKey.execute(required(v, 'key'), reason);
      return { keyId: key.id, status: key.status, revokedReason: key.revokedReason };
    },
    text: (r) => `key ${String(r.keyId)} is ${String(r.status)} (${String(r.revokedReason)})`,
  },
  {
    name: 'demo seed',
    summary: 'seed the demo: catalogue, channel, agent with a key, tenant with a user',
    usage: 'demo seed',
    options: {},
    run: async (_v, u) => ({ ...(await u.seedDemo.execute()) }),
    text: (r) => `Demo seeded. Credentials (shown once):\n${JSON.stringify(r, null, 2)}`,
  },
];

/** The outcome of one invocation, for the process entry point to print and exit with. */
export interface CliOutcome {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs one admin command. With `--json`, stdout holds exactly one JSON object; errors always go
 * to stderr with a non-zero exit code (2 for usage, 1 for a refused or failed operation).
 */
export async function runAdmin<U>(
  argv: readonly string[],
  commands: readonly AdminCommand<U>[],
  useCases: () => Promise<U>,
): Promise<CliOutcome> {
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  const fail = (exitCode: number, reason: string, message: string): CliOutcome => ({
    exitCode,
    stdout: '',
    stderr: json ? `${JSON.stringify({ error: { reason, message } })}\n` : `error: ${message}\n`,
  });
  const command = commands.find((c) => {
    const words = c.name.split(' ');
    return words.every((w, i) => args[i] === w);
  });
  if (args.length === 0 || args[0] === 'help' || args[0] === '--help') {
    return { exitCode: 0, stdout: help(commands), stderr: '' };
  }
  if (command === undefined) {
    const refused = fail(2, 'unknown-command', `unknown command: ${args.slice(0, 2).join(' ')}`);
    return json ? refused : { ...refused, stderr: refused.stderr + help(commands) };
  }
  let values: Values;
  try {
    const parsed = parseArgs({ args: args.slice(command.name.split(' ').length), options: command.options, strict: true, allowPositionals: false });
    values = parsed.values as Values;
  } catch (err) {
    return fail(2, 'usage', `${(err as Error).message}\nusage: ${command.usage}`);
  }
  try {
    const result = await command.run(values, await useCases());
    const stdout = json ? `${JSON.stringify(result)}\n` : `${command.text ? command.text(result) : JSON.stringify(result, null, 2)}\n`;
    return { exitCode: 0, stdout, stderr: '' };
  } catch (err) {
    if (err instanceof UsageError) return fail(2, 'usage', `${err.message}\nusage: ${command.usage}`);
    if (err instanceof DomainError) return fail(1, err.reason, err.message);
    return fail(1, 'internal-error', err instanceof Error ? err.message : String(err));
  }
}

function help(commands: readonly AdminCommand<unknown>[]): string {
  const lines = commands.map((c) => `  ${c.usage.padEnd(80)} ${c.summary}`);
  return `usage: npm run --silent admin -- <command> [flags] [--json]\n\ncommands:\n${lines.join('\n')}\n`;
}
