import { parseArgs } from 'node:util';
import { DomainError } from '../../domain/shared/errors.js';
import { REVOKED_REASONS } from '../../domain/identity/api-key.js';
import type { CreateAgent } from '../../application/admin/create-agent.js';
import type { CreateChannel } from '../../application/admin/create-channel.js';
import type { ListChannels } from '../../application/admin/list-channels.js';
import type { SetAgentStatus } from '../../application/admin/set-agent-status.js';
import type { UpdateChannel } from '../../application/admin/update-channel.js';
import type { IssueApiKey } from '../../application/admin/issue-api-key.js';
import type { RevokeApiKey } from '../../application/admin/revoke-api-key.js';
import type { ListAgents } from '../../application/admin/list-agents.js';
import type { ShowAgent } from '../../application/admin/show-agent.js';
import type { SetAgentChannel } from '../../application/admin/set-agent-channel.js';
import type { ListAgentKeys } from '../../application/identity/list-agent-keys.js';
import { keyView } from '../json-views.js';
import type { SeedCatalogue } from '../../application/catalogue/seed-catalogue.js';
import type { SeedDemo } from '../../application/admin/seed-demo.js';
import type { CreateSandbox } from '../../application/admin/create-sandbox.js';
import type { CreateTenant } from '../../application/admin/create-tenant.js';
import type { CreateTenantUser } from '../../application/admin/create-tenant-user.js';
import type { ListTenants } from '../../application/admin/list-tenants.js';
import type { ListTenantUsers } from '../../application/admin/list-tenant-users.js';
import type { RotateClientSecret } from '../../application/admin/rotate-client-secret.js';
import type { RotateSigningKey } from '../../application/admin/rotate-signing-key.js';
import type { SetWalletUserDisabled } from '../../application/admin/set-wallet-user-disabled.js';
import type { ListSecurityEvents } from '../../application/security-events/list-security-events.js';
import { shownSecurityEvent, type SecurityEvent } from '../../domain/security-events/security-event.js';
import type { SetTenantClientSettings } from '../../application/admin/set-tenant-client-settings.js';
import type { CreateOperator } from '../../application/admin/create-operator.js';
import type { ListOperators } from '../../application/admin/list-operators.js';
import type { ShowOperator } from '../../application/admin/show-operator.js';
import type { SetOperatorFleet } from '../../application/admin/set-operator-fleet.js';
import type { IssueOperatorKey, RevokeOperatorKey } from '../../application/admin/operator-keys.js';
import type { FundAgent, GetStatement, SetAgentBilling, SetLowBalanceAlert } from '../../application/billing/agent-billing.js';
import {
  CommandRefused,
  given,
  optional,
  optionalChoice,
  optionalInt,
  PROGRAM,
  required,
  usageOf,
  UsageError,
  type AdminCommand,
  type Values,
} from './command.js';
import { commandHelp, findCommand, groupHelp, commandsUnder } from './help.js';
import type { DatabaseMaintenance } from './maintenance-commands.js';
import { fields, table } from './output.js';

/** The use cases the admin commands drive, resolved lazily so a command builds only what it uses. */
export interface AdminUseCases {
  readonly seedCatalogue: SeedCatalogue;
  readonly createChannel: CreateChannel;
  readonly updateChannel: UpdateChannel;
  readonly listChannels: ListChannels;
  readonly listAgentKeys: ListAgentKeys;
  readonly createAgent: CreateAgent;
  readonly setAgentStatus: SetAgentStatus;
  readonly listAgents: ListAgents;
  readonly showAgent: ShowAgent;
  readonly setAgentChannel: SetAgentChannel;
  readonly issueApiKey: IssueApiKey;
  readonly revokeApiKey: RevokeApiKey;
  readonly seedDemo: SeedDemo;
  readonly createTenant: CreateTenant;
  readonly createWalletUser: CreateTenantUser;
  readonly rotateSigningKey: RotateSigningKey;
  readonly listTenants: ListTenants;
  readonly rotateClientSecret: RotateClientSecret;
  readonly listTenantUsers: ListTenantUsers;
  readonly setWalletUserDisabled: SetWalletUserDisabled;
  readonly listSecurityEvents: ListSecurityEvents;
  readonly setTenantClientSettings: SetTenantClientSettings;
  readonly createOperator: CreateOperator;
  readonly listOperators: ListOperators;
  readonly showOperator: ShowOperator;
  readonly setOperatorFleet: SetOperatorFleet;
  readonly issueOperatorKey: IssueOperatorKey;
  readonly revokeOperatorKey: RevokeOperatorKey;
  readonly fundAgent: FundAgent;
  readonly setAgentBilling: SetAgentBilling;
  readonly setLowBalanceAlert: SetLowBalanceAlert;
  readonly statements: GetStatement;
  readonly maintenance: DatabaseMaintenance;
  readonly createSandbox: CreateSandbox;
}

/** An admin command of this service. */
export type ServiceCommand = AdminCommand<AdminUseCases>;

const bps = (what: string, range: string): string => `${what} in basis points (100 = 1 %), ${range}`;

/** The booking-side commands of the contract. */
export const BOOKING_COMMANDS: readonly ServiceCommand[] = [
  {
    name: 'catalogue seed',
    summary: 'load the shipped demo catalogue (idempotent)',
    flags: {},
    run: async (_v, u) => ({ ...(await u.seedCatalogue.execute()) }),
    output: 'fields',
  },
  {
    name: 'channel create',
    summary: 'create a sales channel',
    flags: {
      code: { value: 'C', required: true, description: 'the channel code: 1-32 of A-Z, 0-9, _ and -' },
      name: { value: 'N', required: true, description: 'the channel name, 1-200 characters' },
      currency: { value: 'CUR', required: true, description: 'the ISO 4217 currency of its prices, such as THB' },
      'markup-bps': { value: 'N', description: bps('markup over the base fares', '-10000..10000, default 0') },
    },
    run: async (v, u) => {
      const markupBps = optionalInt(v, 'markup-bps');
      return u.createChannel.execute({
        code: required(v, 'code'),
        name: required(v, 'name'),
        currency: required(v, 'currency'),
        ...given({ markupBps }),
      });
    },
    output: 'fields',
  },
  {
    name: 'channel update',
    summary: "change a channel's markup, cancellation terms and longest hold (only the flags given)",
    flags: {
      code: { value: 'C', required: true, description: 'the channel to change' },
      'markup-bps': { value: 'N', description: bps('markup over the base fares', '-10000..10000') },
      'free-cancellation-hours': { value: 'N', description: 'hours before the start until which a cancellation is free, 0..8760' },
      'late-cancellation-fee-bps': { value: 'N', description: bps('fee of a later cancellation', '0..10000') },
      'max-hold-minutes': { value: 'N', description: 'the longest an order may be held before it is confirmed, 1..1440 (default 30)' },
    },
    run: async (v, u) => {
      const markupBps = optionalInt(v, 'markup-bps');
      const freeCancellationHours = optionalInt(v, 'free-cancellation-hours');
      const lateCancellationFeeBps = optionalInt(v, 'late-cancellation-fee-bps');
      const maxHoldMinutes = optionalInt(v, 'max-hold-minutes');
      return {
        ...(await u.updateChannel.execute(required(v, 'code'), {
          ...given({ markupBps, freeCancellationHours, lateCancellationFeeBps, maxHoldMinutes }),
        })),
      };
    },
    output: 'fields',
  },
  {
    name: 'channel list',
    summary: 'list the channels with their pricing and cancellation terms',
    flags: {},
    run: async (_v, u) => ({ data: (await u.listChannels.execute()).map((c) => ({ ...c })) }),
    output: { table: ['code', 'name', 'currency', 'markupBps', 'freeCancellationHours', 'lateCancellationFeeBps', 'maxHoldMinutes'] },
  },
  {
    name: 'agent create',
    summary: 'create an agent under a channel',
    flags: {
      name: { value: 'N', required: true, description: 'the agent name, 1-200 characters' },
      channel: { value: 'C', required: true, description: 'the code of the channel whose prices it gets' },
      products: { value: 'P,P', description: 'what it may book: airport-transfer, express-bus (default both)' },
      'discount-bps': { value: 'N', description: bps('its discount off the channel price', '0..10000, default 0') },
      billing: { value: 'prepaid|invoice', description: 'how it pays for bookings (default invoice: billed later, never checked)' },
      'credit-limit': {
        value: 'N',
        description: 'with --billing prepaid: how far below zero its balance may go, in minor units (default 0)',
      },
      test: { description: 'make a sandbox agent: its keys are pbk_test_…, its objects livemode false, apart from live data' },
    },
    run: async (v, u) => {
      const discountBps = optionalInt(v, 'discount-bps');
      const products =
        typeof v.products === 'string'
          ? v.products
              .split(',')
              .map((p) => p.trim())
              .filter(Boolean)
          : undefined;
      const billing = optional(v, 'billing');
      if (billing !== undefined && billing !== 'prepaid' && billing !== 'invoice')
        throw new UsageError('--billing must be prepaid or invoice');
      const creditLimit = optionalInt(v, 'credit-limit');
      const agent = await u.createAgent.execute({
        name: required(v, 'name'),
        channelCode: required(v, 'channel'),
        ...given({ products, discountBps }),
        livemode: v.test !== true,
      });
      if (billing === undefined || (billing === 'invoice' && creditLimit === undefined)) {
        return { agentId: agent.id, livemode: agent.livemode };
      }
      const set = await u.setAgentBilling.execute({ agentId: agent.id, mode: billing, creditLimit });
      return { agentId: agent.id, livemode: agent.livemode, billing: set.mode, creditLimit: set.creditLimit.amount };
    },
    output: 'fields',
  },
  {
    name: 'agent list',
    summary: 'list the agents, oldest first (never a key)',
    flags: { channel: { value: 'C', description: 'only the agents of this channel' } },
    run: async (v, u) => ({ data: await u.listAgents.execute({ channelCode: optional(v, 'channel') }) }),
    output: { table: ['agentId', 'status', 'channel', 'discountBps', 'entitlements', 'livemode', 'createdAt', 'name'] },
  },
  {
    name: 'agent show',
    summary: "show an agent: its contract, its channel's terms and how many of its keys work",
    flags: { agent: { value: 'ID', required: true, description: 'the agent (agt_…)' } },
    run: async (v, u) => ({ ...(await u.showAgent.execute(required(v, 'agent'))) }),
    output: 'fields',
  },
  {
    name: 'agent set-channel',
    summary: "move an agent to another channel: its later quotes get that channel's prices",
    flags: {
      agent: { value: 'ID', required: true, description: 'the agent (agt_…)' },
      channel: { value: 'C', required: true, description: 'the code of the channel to move it to' },
    },
    run: async (v, u) => ({ ...(await u.setAgentChannel.execute(required(v, 'agent'), required(v, 'channel'))) }),
    output: 'fields',
  },
  ...(['suspend', 'activate'] as const).map((verb): ServiceCommand => ({
    name: `agent ${verb}`,
    summary: verb === 'suspend' ? 'suspend an agent (its keys stop working)' : 're-activate an agent',
    flags: { agent: { value: 'ID', required: true, description: 'the agent (agt_…)' } },
    run: async (v, u) => {
      const agent = await u.setAgentStatus.execute(required(v, 'agent'), verb === 'suspend' ? 'SUSPENDED' : 'ACTIVE');
      return { agentId: agent.id, status: agent.status };
    },
    output: 'fields',
  })),
  {
    name: 'key issue',
    summary: 'issue an API key to an agent (shown once)',
    flags: {
      agent: { value: 'ID', required: true, description: 'the agent (agt_…)' },
      'expires-in-days': { value: 'N', description: 'the key stops working after this many days (default: never)' },
      name: { value: 'N', description: 'a label for the key (1 to 100 characters)' },
      scopes: { value: 'a,b', description: 'what the key may call, comma-separated (default *: everything)' },
      'allowed-ips': { value: 'CIDR,…', description: 'the IPv4/IPv6 ranges the key may be used from, at most 20 (default: anywhere)' },
      'expires-at': { value: 'RFC3339', description: 'the key stops working at this time (instead of --expires-in-days)' },
    },
    run: async (v, u) => {
      const days = optionalInt(v, 'expires-in-days');
      const name = optional(v, 'name');
      const scopes = listFlag(v, 'scopes');
      const allowedIps = listFlag(v, 'allowed-ips');
      const expiresAt = timeFlag(v, 'expires-at');
      const issued = await u.issueApiKey.execute({
        agentId: required(v, 'agent'),
        ...given({ expiresInDays: days, name, scopes, allowedIps, expiresAt }),
      });
      return { keyId: issued.keyId, apiKey: issued.apiKey };
    },
    output: 'fields',
    note: 'the API key is shown this once (only its hash is stored): store it now.',
  },
  {
    name: 'key revoke',
    summary: 'revoke an API key; --leaked also revokes the keys rolled from or created by it and blocks cancelling its bookings',
    flags: {
      key: { value: 'ID', required: true, description: 'the key (key_…)' },
      leaked: { description: 'the key leaked (the same as --reason leaked)' },
      reason: { value: REVOKED_REASONS.join('|'), description: 'why it is revoked (default operator)' },
    },
    run: async (v, u) => {
      const reasonFlag = optionalChoice(v, 'reason', REVOKED_REASONS);
      if (v.leaked === true && reasonFlag !== undefined && reasonFlag !== 'leaked') {
        throw new UsageError('--leaked and --reason disagree');
      }
      const reason = v.leaked === true ? 'leaked' : (reasonFlag ?? 'operator');
      const { key, rolled } = await u.revokeApiKey.execute(required(v, 'key'), reason);
      return { keyId: key.id, status: key.status, revokedReason: key.revokedReason, rolledKeysRevoked: rolled.map((k) => k.id) };
    },
    output: 'fields',
  },
  {
    name: 'key list',
    summary: "list an agent's keys, oldest first (metadata only, never the key)",
    flags: { agent: { value: 'ID', required: true, description: 'the agent (agt_…)' } },
    run: async (v, u) => ({ data: (await u.listAgentKeys.execute(required(v, 'agent'))).map(keyView) }),
    output: {
      table: [
        'id',
        'name',
        'prefix',
        'status',
        'revokedReason',
        'scopes',
        'allowedIps',
        'createdAt',
        'expiresAt',
        'lastUsedAt',
        'rolledFromKeyId',
        'createdByKeyId',
      ],
    },
  },
  {
    name: 'events list',
    summary: "list an agent's or a tenant's security events, newest first",
    flags: {
      agent: { value: 'ID', description: 'the agent (agt_…) whose events to list' },
      tenant: { value: 'ID', description: 'the tenant (tnt_…) whose events to list' },
      type: { value: 'T', description: 'only events of these types, comma-separated' },
      since: { value: 'RFC3339', description: 'only events at or after this time' },
      until: { value: 'RFC3339', description: 'only events before this time' },
      limit: { value: 'N', description: 'how many events (1 to 100, default 20)' },
      cursor: { value: 'C', description: 'the nextCursor of the page before' },
    },
    run: async (v, u) => {
      const agent = optional(v, 'agent');
      const tenant = optional(v, 'tenant');
      if ((agent === undefined) === (tenant === undefined)) throw new UsageError('name either --agent or --tenant');
      const types = listFlag(v, 'type');
      const since = timeFlag(v, 'since');
      const until = timeFlag(v, 'until');
      const limit = optionalInt(v, 'limit');
      const cursor = optional(v, 'cursor');
      const owner = agent !== undefined ? { kind: 'agent' as const, id: agent } : { kind: 'tenant' as const, id: tenant! };
      const page = await u.listSecurityEvents.execute(owner, {
        ...given({ types, since, until, limit, cursor }),
      });
      return { data: page.data.map(securityEventJson), nextCursor: page.nextCursor };
    },
    output: { table: ['occurredAt', 'type', 'actor', 'subject', 'ip', 'details', 'id'] },
  },
  {
    name: 'demo seed',
    summary: 'seed the demo (catalogue, channel, agent with a key, tenant with a user); --reset issues new secrets',
    flags: {
      reset: {
        description: "issue new demo secrets (the demo key, the tenant's secret, the user's password); the earlier demo keys are revoked",
      },
    },
    run: async (v, u) => ({ ...(await u.seedDemo.execute({ reset: v.reset === true })) }),
    output: (r) => demoText(r),
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

/** A security event as the API returns it (RFC 3339 time, no storage fields). */
export const securityEventJson = (recorded: SecurityEvent): Record<string, unknown> => eventJson(shownSecurityEvent(recorded));

const eventJson = (e: SecurityEvent): Record<string, unknown> => ({
  id: e.id,
  type: e.type,
  occurredAt: e.occurredAt.toISOString(),
  actor: e.actor,
  subject: e.subject,
  ip: e.ip,
  requestId: e.requestId,
  details: e.details,
});

/** A comma-separated flag as a list (absent: undefined). */
const listFlag = (v: Values, flag: string): string[] | undefined => {
  const text = optional(v, flag);
  return text === undefined
    ? undefined
    : text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
};

/** An RFC 3339 time flag (absent: undefined); anything else is a usage error. */
const timeFlag = (v: Values, flag: string): Date | undefined => {
  const text = optional(v, flag);
  if (text === undefined) return undefined;
  const at = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text) || Number.isNaN(at.getTime())) {
    throw new UsageError(`--${flag} must be an RFC 3339 time, such as 2027-01-31T00:00:00Z`);
  }
  return at;
};

/** The outcome of one invocation, for the process entry point to print and exit with. */
export interface CliOutcome {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** What an invocation asks for: an answer that needs no database (help, a usage error), or a command to run. */
export type Invocation<U> =
  | { readonly kind: 'answer'; readonly outcome: CliOutcome }
  | { readonly kind: 'run'; readonly command: AdminCommand<U>; readonly values: Values; readonly json: boolean };

const HELP_FLAGS = new Set(['--help', '-h']);

/**
 * Reads the command line without touching any database: help (`--help`, `-h`, `help …`, or a
 * command group alone) and mistakes in the call are answered here.
 */
export function parseInvocation<U>(argv: readonly string[], commands: readonly AdminCommand<U>[]): Invocation<U> {
  const json = argv.includes('--json');
  let args = argv.filter((a) => a !== '--json' && !HELP_FLAGS.has(a));
  let wantsHelp = argv.some((a) => HELP_FLAGS.has(a));
  if (args[0] === 'help') {
    wantsHelp = true;
    args = args.slice(1);
  }
  const answer = (help: { text: string; json: Record<string, unknown> }): Invocation<U> => ({
    kind: 'answer',
    outcome: { exitCode: 0, stdout: json ? `${JSON.stringify(help.json)}\n` : help.text, stderr: '' },
  });
  const refuse = (exitCode: number, reason: string, message: string, help = ''): Invocation<U> => ({
    kind: 'answer',
    outcome: {
      exitCode,
      stdout: '',
      stderr: json ? `${JSON.stringify({ error: { reason, message } })}\n` : `error: ${message}\n${help === '' ? '' : `\n${help}`}`,
    },
  });
  const command = findCommand(commands, args);
  if (command !== undefined) {
    if (wantsHelp) return answer(commandHelp(command));
    return parseFlags(command, args.slice(command.name.split(' ').length), json, refuse);
  }
  const words: string[] = [];
  for (const a of args) {
    if (a.startsWith('-') || commandsUnder(commands, [...words, a]).length === 0) break;
    words.push(a);
  }
  if (words.length === args.length) return answer(groupHelp(commands, words));
  const named = args.slice(0, words.length + 1).join(' ');
  return refuse(2, 'unknown-command', `unknown command: ${named}`, groupHelp(commands, words).text);
}

function parseFlags<U>(
  command: AdminCommand<U>,
  args: readonly string[],
  json: boolean,
  refuse: (exitCode: number, reason: string, message: string) => Invocation<U>,
): Invocation<U> {
  const usage = `usage: ${usageOf(command)}\nits flags: ${PROGRAM} ${command.name} --help`;
  try {
    const { values } = parseArgs({
      args: negativeValuesJoined(command, args),
      options: Object.fromEntries(
        Object.entries(command.flags).map(([name, flag]) => [name, { type: flag.value === undefined ? 'boolean' : 'string' } as const]),
      ),
      strict: true,
      allowPositionals: false,
    });
    for (const [name, flag] of Object.entries(command.flags)) {
      if (flag.required === true) required(values, name);
    }
    return { kind: 'run', command, values, json };
  } catch (err) {
    return refuse(2, 'usage', `${(err as Error).message}\n${usage}`);
  }
}

/**
 * The arguments with a negative number after a flag that takes a value joined to it
 * (`--amount -5` as `--amount=-5`): parseArgs would read `-5` as an option, and the value is
 * then refused for what it is (a non-positive amount), not as a usage error.
 */
function negativeValuesJoined<U>(command: AdminCommand<U>, args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const flag = arg.startsWith('--') ? command.flags[arg.slice(2)] : undefined;
    if (flag?.value !== undefined && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else {
      out.push(arg);
    }
  }
  return out;
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
  const invocation = parseInvocation(argv, commands);
  if (invocation.kind === 'answer') return invocation.outcome;
  const { command, values, json } = invocation;
  const fail = (exitCode: number, reason: string, message: string): CliOutcome => ({
    exitCode,
    stdout: '',
    stderr: json ? `${JSON.stringify({ error: { reason, message } })}\n` : `error: ${message}\n`,
  });
  try {
    const result = await command.run(values, await useCases());
    if (json) return { exitCode: 0, stdout: `${JSON.stringify(result)}\n`, stderr: '' };
    return { exitCode: 0, stdout: `${render(command, result)}\n`, stderr: command.note === undefined ? '' : `note: ${command.note}\n` };
  } catch (err) {
    if (err instanceof UsageError) return fail(2, 'usage', `${err.message}\nusage: ${usageOf(command)}`);
    if (err instanceof DomainError || err instanceof CommandRefused) return fail(1, err.reason, err.message);
    return fail(1, 'internal-error', err instanceof Error ? err.message : String(err));
  }
}

function render<U>(command: AdminCommand<U>, result: Record<string, unknown>): string {
  const output = command.output;
  if (output === 'fields') return fields(result);
  if (typeof output === 'function') return output(result);
  return table(result.data as Record<string, unknown>[], output.table);
}
