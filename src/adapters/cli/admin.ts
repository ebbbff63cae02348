import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DomainError } from '../../domain/shared/errors.js';
import { REVOKED_REASONS } from '../../domain/identity/api-key.js';
import type { CreateAgent } from '../../application/admin/create-agent.js';
import type { CreateChannel } from '../../application/admin/create-channel.js';
import type { ListChannels } from '../../application/admin/list-channels.js';
import type { SetAgentStatus } from '../../application/admin/set-agent-status.js';
import type { UpdateChannel } from '../../application/admin/update-channel.js';
import type { IssueApiKey } from '../../application/admin/issue-api-key.js';
import type { RevokeApiKey } from '../../application/admin/revoke-api-key.js';
import type { ListAgentKeys } from '../../application/identity/list-agent-keys.js';
import type { KeyView } from '../../domain/identity/api-key.js';
import type { SeedCatalogue } from '../../application/catalogue/seed-catalogue.js';
import type { SeedDemo } from '../../application/admin/seed-demo.js';
import type { CreateTenant } from '../../application/admin/create-tenant.js';
import type { ListTenants } from '../../application/admin/list-tenants.js';
import type { ListTenantUsers } from '../../application/admin/list-tenant-users.js';
import type { RotateClientSecret } from '../../application/admin/rotate-client-secret.js';
import type { RotateSigningKey } from '../../application/admin/rotate-signing-key.js';
import type { SetWalletUserDisabled } from '../../application/admin/set-wallet-user-disabled.js';
import type { CreateWalletUser } from '../../application/wallet/create-wallet-user.js';

/** The use cases the admin commands drive, resolved lazily so a command builds only what it uses. */
export interface AdminUseCases {
  readonly seedCatalogue: SeedCatalogue;
  readonly createChannel: CreateChannel;
  readonly updateChannel: UpdateChannel;
  readonly listChannels: ListChannels;
  readonly listAgentKeys: ListAgentKeys;
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
    name: 'channel update',
    summary: "change a channel's markup and cancellation terms",
    usage: 'channel update --code C [--markup-bps N] [--free-cancellation-hours N] [--late-cancellation-fee-bps N]',
    options: { code: str, 'markup-bps': str, 'free-cancellation-hours': str, 'late-cancellation-fee-bps': str },
    run: async (v, u) => {
      const markupBps = optionalInt(v, 'markup-bps');
      const freeCancellationHours = optionalInt(v, 'free-cancellation-hours');
      const lateCancellationFeeBps = optionalInt(v, 'late-cancellation-fee-bps');
      return {
        ...(await u.updateChannel.execute(required(v, 'code'), {
          ...(markupBps === undefined ? {} : { markupBps }),
          ...(freeCancellationHours === undefined ? {} : { freeCancellationHours }),
          ...(lateCancellationFeeBps === undefined ? {} : { lateCancellationFeeBps }),
        })),
      };
    },
    text: (r) =>
      `channel ${String(r.code)}: markup ${String(r.markupBps)} bps, free cancellation until ${String(r.freeCancellationHours)} h before, then a fee of ${String(r.lateCancellationFeeBps)} bps`,
  },
  {
    name: 'channel list',
    summary: 'list the channels with their pricing and cancellation terms',
    usage: 'channel list',
    options: {},
    run: async (_v, u) => ({ data: (await u.listChannels.execute()).map((c) => ({ ...c })) }),
    text: (r) =>
      (r.data as Array<Record<string, unknown>>)
        .map(
          (c) =>
            `${String(c.code)}  ${String(c.currency)}  markup ${String(c.markupBps)} bps  free ${String(c.freeCancellationHours)} h  fee ${String(c.lateCancellationFeeBps)} bps  ${String(c.name)}`,
        )
        .join('\n') || '(no channels)',
  },
  {
    name: 'agent create',
    summary: 'create an agent under a channel',
    usage: 'agent create --name N --channel C [--products airport-transfer,express-bus] [--discount-bps N]',
    options: { name: str, channel: str, products: str, 'discount-bps': str },
    run: async (v, u) => {
      const discountBps = optionalInt(v, 'discount-bps');
      const products =
        typeof v.products === 'string'
          ? v.products
              .split(',')
              .map((p) => p.trim())
              .filter(Boolean)
          : undefined;
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
  ...(['suspend', 'activate'] as const).map((verb): AdminCommand => ({
    name: `agent ${verb}`,
    summary: verb === 'suspend' ? 'suspend an agent (its keys stop working)' : 're-activate an agent',
    usage: `agent ${verb} --agent ID`,
    options: { agent: str },
    run: async (v, u) => {
      const agent = await u.setAgentStatus.execute(required(v, 'agent'), verb === 'suspend' ? 'SUSPENDED' : 'ACTIVE');
      return { agentId: agent.id, status: agent.status };
    },
    text: (r) => `agent ${String(r.agentId)} is ${String(r.status)}`,
  })),
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
      const { key, rolled } = await u.revokeApiKey.execute(required(v, 'key'), reason);
      return { keyId: key.id, status: key.status, revokedReason: key.revokedReason, rolledKeysRevoked: rolled.map((k) => k.id) };
    },
    text: (r) => {
      const rolled = r.rolledKeysRevoked as string[];
      const also = rolled.length === 0 ? '' : `; keys rolled from it, revoked too: ${rolled.join(', ')}`;
      return `key ${String(r.keyId)} is ${String(r.status)} (${String(r.revokedReason)})${also}`;
    },
  },
  {
    name: 'key list',
    summary: "list an agent's keys (metadata only, never the key)",
    usage: 'key list --agent ID',
    options: { agent: str },
    run: async (v, u) => ({ data: (await u.listAgentKeys.execute(required(v, 'agent'))).map(keyJson) }),
    text: (r) =>
      (r.data as Array<Record<string, unknown>>)
        .map(
          (k) =>
            `${String(k.id)}  ${String(k.prefix)}…  ${String(k.status)}${k.revokedReason === null ? '' : ` (${String(k.revokedReason)})`}  created ${String(k.createdAt)}  last used ${String(k.lastUsedAt ?? 'never')}${k.rolledFromKeyId === null ? '' : `  rolled from ${String(k.rolledFromKeyId)}`}`,
        )
        .join('\n') || '(no keys)',
  },
  {
    name: 'demo seed',
    summary: 'seed the demo (catalogue, channel, agent with a key, tenant with a user); --reset issues new secrets',
    usage: 'demo seed [--reset]',
    options: { reset: { type: 'boolean' } },
    run: async (v, u) => ({ ...(await u.seedDemo.execute({ reset: v.reset === true })) }),
    text: (r) => demoText(r),
  },
];

/** How to get new demo credentials while keeping the demo's data. */
export const DEMO_RESET_HINT = 'npm run --silent admin -- demo seed --reset';

/** The demo's credentials for a person: the secrets issued now, or how to get new ones. */
export function demoText(r: Record<string, unknown>): string {
  const wallet = (r.wallet ?? {}) as { clientId?: string; clientSecret?: string; user?: { email?: string; password?: string } };
  const notShown = '(not shown again: stored as a hash)';
  if (r.issued !== true && wallet.clientSecret === undefined && wallet.user?.password === undefined) {
    return (
      'The demo already exists; nothing was changed. Its secrets are stored only as hashes, so they cannot be shown again.\n' +
      `For new demo credentials (the demo tenant's secret and the demo user's password are replaced): ${DEMO_RESET_HINT}`
    );
  }
  const lines = [
    'Demo credentials (shown this once: only hashes are stored):',
    `  booking API key (X-API-KEY):  ${String(r.apiKey ?? notShown)}`,
    `  wallet OAuth client:          ${String(wallet.clientId)} / ${wallet.clientSecret ?? notShown}`,
    `  wallet demo user:             ${String(wallet.user?.email)} / ${wallet.user?.password ?? notShown}`,
  ];
  return lines.join('\n');
}

/** A key's metadata as JSON (RFC 3339 times). */
export const keyJson = (k: KeyView): Record<string, unknown> => ({
  id: k.id,
  prefix: k.prefix,
  status: k.status,
  createdAt: k.createdAt.toISOString(),
  expiresAt: k.expiresAt?.toISOString() ?? null,
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
  revokedReason: k.revokedReason,
  rolledFromKeyId: k.rolledFromKeyId,
});

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
    const parsed = parseArgs({
      args: args.slice(command.name.split(' ').length),
      options: command.options,
      strict: true,
      allowPositionals: false,
    });
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
