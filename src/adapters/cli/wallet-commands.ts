import { optional, required, str, UsageError, type AdminCommand } from './admin.js';

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
];
