import { optional, optionalInt, required, str, UsageError, type AdminCommand } from './admin.js';

/** How long the old client secret keeps working after `tenant rotate-secret` unless told. */
const DEFAULT_OVERLAP_HOURS = 24;

/** The wallet identity commands: tenants, users and token signing keys. */
export const WALLET_IDENTITY_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'tenant create',
    summary: 'create a wallet tenant with its OAuth client (secret shown once)',
    usage: 'tenant create --name N [--currency CUR]',
    options: { name: str, currency: str },
    run: async (v, u) => {
      const currency = optional(v, 'currency');
      return { ...(await u.createTenant.execute({ name: required(v, 'name'), ...(currency === undefined ? {} : { currency }) })) };
    },
    text: (r) =>
      `tenant ${String(r.tenantId)} created. Client id: ${String(r.clientId)}\n` +
      `Client secret (store it now, it is not shown again):\n${String(r.clientSecret)}`,
  },
  {
    name: 'user create',
    summary: 'create a wallet user of a tenant',
    usage: 'user create --tenant ID [--email E --password P] [--external-ref R]',
    options: { tenant: str, email: str, password: str, 'external-ref': str },
    run: async (v, u) => {
      const email = optional(v, 'email');
      const password = optional(v, 'password');
      const externalUserRef = optional(v, 'external-ref');
      if (password !== undefined && email === undefined) throw new UsageError('--password needs --email');
      const user = await u.createWalletUser.execute(required(v, 'tenant'), {
        ...(email === undefined ? {} : { email }),
        ...(password === undefined ? {} : { password }),
        ...(externalUserRef === undefined ? {} : { externalUserRef }),
      });
      return { userId: user.id };
    },
    text: (r) => `user ${String(r.userId)} created`,
  },
  {
    name: 'signing-key rotate',
    summary: 'sign wallet tokens with a new key; the old one verifies until its tokens expire',
    usage: 'signing-key rotate',
    options: {},
    run: async (_v, u) => ({ ...(await u.rotateSigningKey.execute()) }),
    text: (r) => `signing key ${String(r.kid)} is active (previous: ${String(r.previousKid)})`,
  },
  {
    name: 'tenant list',
    summary: 'list the wallet tenants (never a secret)',
    usage: 'tenant list',
    options: {},
    run: async (_v, u) => ({ data: await u.listTenants.execute() }),
    text: (r) =>
      (r.data as Array<Record<string, unknown>>)
        .map((t) => `${String(t.tenantId)}  ${String(t.clientId)}  ${String(t.currency)}  ${String(t.name)}`)
        .join('\n') || 'no tenants',
  },
  {
    name: 'tenant rotate-secret',
    summary: `issue a new client secret (shown once); the old one works for the overlap (default ${DEFAULT_OVERLAP_HOURS} h, 0: ends now)`,
    usage: 'tenant rotate-secret --tenant ID [--overlap-hours N]',
    options: { tenant: str, 'overlap-hours': str },
    run: async (v, u) => {
      const hours = optionalInt(v, 'overlap-hours') ?? DEFAULT_OVERLAP_HOURS;
      if (hours < 0) throw new UsageError('--overlap-hours must be 0 or more');
      return { ...(await u.rotateClientSecret.execute(required(v, 'tenant'), hours * 3600)) };
    },
    text: (r) =>
      `tenant ${String(r.tenantId)} (client ${String(r.clientId)}) has a new client secret (store it now, it is not shown again):\n` +
      `${String(r.clientSecret)}\n` +
      (r.previousSecretValidUntil === null
        ? 'The previous secret no longer works.'
        : `The previous secret works until ${new Date(r.previousSecretValidUntil as string | Date).toISOString()}.`),
  },
  {
    name: 'user list',
    summary: 'list the wallet users of a tenant',
    usage: 'user list --tenant ID',
    options: { tenant: str },
    run: async (v, u) => ({ data: await u.listTenantUsers.execute(required(v, 'tenant')) }),
    text: (r) =>
      (r.data as Array<Record<string, unknown>>)
        .map((x) => `${String(x.userId)}  ${String(x.status)}  ${String(x.externalUserRef)}  ${String(x.email ?? '')}`)
        .join('\n') || 'no users',
  },
  ...(['disable', 'enable'] as const).map((verb): AdminCommand => ({
    name: `user ${verb}`,
    summary:
      verb === 'disable'
        ? 'disable a wallet user: its tokens stop working at once, login and delegation are refused; balance and history stay'
        : 'enable a wallet user again (tokens issued before stay invalid: the person signs in again)',
    usage: `user ${verb} --user ID`,
    options: { user: str },
    run: async (v, u) => {
      const user = await u.setWalletUserDisabled.execute(required(v, 'user'), verb === 'disable');
      return { userId: user.userId, status: user.status, disabledAt: user.disabledAt };
    },
    text: (r) => `user ${String(r.userId)} is ${String(r.status)}`,
  })),
];
