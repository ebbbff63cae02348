import { readFile } from 'node:fs/promises';
import { CLIENT_AUTH_METHODS, isClientAuthMethod } from '../../domain/identity/client-keys.js';
import type { ServiceCommand } from './admin.js';
import { given, optional, optionalInt, required, UsageError } from './command.js';

/** How long the old client secret keeps working after `tenant rotate-secret` unless told. */
const DEFAULT_OVERLAP_HOURS = 24;

/** The wallet identity commands: tenants, users and token signing keys. */
export const WALLET_IDENTITY_COMMANDS: readonly ServiceCommand[] = [
  {
    name: 'tenant create',
    summary: 'create a wallet tenant with its OAuth client (secret shown once)',
    flags: {
      name: { value: 'N', required: true, description: 'the tenant name, 1-200 characters' },
      currency: { value: 'CUR', description: "the ISO 4217 currency of its users' balances (default THB)" },
      test: { description: 'a sandbox tenant: client id cli_test_…, its data livemode false and never mixed with live data' },
    },
    run: async (v, u) => {
      const currency = optional(v, 'currency');
      return { ...(await u.createTenant.execute({ name: required(v, 'name'), ...given({ currency }), test: v.test === true })) };
    },
    output: 'fields',
    note: 'the client secret is shown this once (only its hash is stored): store it now.',
  },
  {
    name: 'tenant list',
    summary: 'list the wallet tenants, oldest first (never a secret)',
    flags: {},
    run: async (_v, u) => ({ data: await u.listTenants.execute() }),
    output: { table: ['tenantId', 'clientId', 'currency', 'livemode', 'createdAt', 'previousSecretValidUntil', 'name'] },
  },
  {
    name: 'tenant rotate-secret',
    summary: 'issue a new client secret (shown once); the old one keeps working for the overlap',
    flags: {
      tenant: { value: 'ID', required: true, description: 'the tenant (tnt_…)' },
      'overlap-hours': {
        value: 'N',
        description: `hours the previous secret keeps working, 0..720 (default ${DEFAULT_OVERLAP_HOURS}; 0 ends it now)`,
      },
    },
    run: async (v, u) => {
      const hours = optionalInt(v, 'overlap-hours') ?? DEFAULT_OVERLAP_HOURS;
      if (hours < 0) throw new UsageError('--overlap-hours must be 0 or more');
      return { ...(await u.rotateClientSecret.execute(required(v, 'tenant'), hours * 3600)) };
    },
    output: 'fields',
    note: 'the new client secret is shown this once (only its hash is stored): store it now.',
  },
  {
    name: 'tenant set-jwks',
    summary: 'register the public keys (JWK Set) the tenant signs client assertions and subject tokens with',
    flags: {
      tenant: { value: 'ID', required: true, description: 'the tenant (tnt_…)' },
      'jwks-file': {
        value: 'PATH',
        required: true,
        description: 'a JSON file {"keys":[...]} of 1-10 public ES256, RS256 or Ed25519 (EdDSA) keys (a private key is refused)',
      },
    },
    run: async (v, u) => {
      const path = required(v, 'jwks-file');
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch {
        throw new UsageError(`--jwks-file ${path} cannot be read`);
      }
      return { ...(await u.setTenantClientSettings.setJwks(required(v, 'tenant'), text)) };
    },
    output: 'fields',
  },
  {
    name: 'tenant set-auth-method',
    summary: 'choose how the tenant authenticates: its client secret or private_key_jwt',
    flags: {
      tenant: { value: 'ID', required: true, description: 'the tenant (tnt_…)' },
      method: { value: 'M', required: true, description: `${CLIENT_AUTH_METHODS.join(' or ')} (private_key_jwt needs set-jwks first)` },
    },
    run: async (v, u) => {
      const method = required(v, 'method');
      if (!isClientAuthMethod(method)) throw new UsageError(`--method must be ${CLIENT_AUTH_METHODS.join(' or ')}`);
      return { ...(await u.setTenantClientSettings.setAuthMethod(required(v, 'tenant'), method)) };
    },
    output: 'fields',
  },
  {
    name: 'tenant set-dpop',
    summary: "require (or stop requiring) that the tenant's tokens be DPoP-bound",
    flags: {
      tenant: { value: 'ID', required: true, description: 'the tenant (tnt_…)' },
      required: { value: 'on|off', required: true, description: 'on: a token request without a DPoP proof is refused' },
    },
    run: async (v, u) => {
      const value = required(v, 'required');
      if (value !== 'on' && value !== 'off') throw new UsageError('--required must be on or off');
      return { ...(await u.setTenantClientSettings.setDpopRequired(required(v, 'tenant'), value === 'on')) };
    },
    output: 'fields',
  },
  {
    name: 'user create',
    summary: 'create a wallet user of a tenant',
    flags: {
      tenant: { value: 'ID', required: true, description: 'the tenant (tnt_…)' },
      email: { value: 'E', description: 'the e-mail address the user signs in with' },
      password: { value: 'P', description: 'the password the user signs in with (needs --email)' },
      'external-ref': { value: 'R', description: "the tenant's own reference for the user (default: the user's id)" },
    },
    run: async (v, u) => {
      const email = optional(v, 'email');
      const password = optional(v, 'password');
      const externalUserRef = optional(v, 'external-ref');
      if (password !== undefined && email === undefined) throw new UsageError('--password needs --email');
      const user = await u.createWalletUser.execute(required(v, 'tenant'), {
        ...given({ email, password, externalUserRef }),
      });
      return { userId: user.id };
    },
    output: 'fields',
  },
  {
    name: 'user list',
    summary: 'list the wallet users of a tenant, oldest first (never a password)',
    flags: { tenant: { value: 'ID', required: true, description: 'the tenant (tnt_…)' } },
    run: async (v, u) => ({ data: await u.listTenantUsers.execute(required(v, 'tenant')) }),
    output: { table: ['userId', 'status', 'externalUserRef', 'email', 'createdAt', 'disabledAt'] },
  },
  ...(['disable', 'enable'] as const).map((verb): ServiceCommand => ({
    name: `user ${verb}`,
    summary:
      verb === 'disable'
        ? 'disable a wallet user: its tokens stop working at once, login and delegation are refused; balance and history stay'
        : 'enable a wallet user again (tokens issued before stay invalid: the person signs in again)',
    flags: { user: { value: 'ID', required: true, description: 'the wallet user (usr_…)' } },
    run: async (v, u) => {
      const user = await u.setWalletUserDisabled.execute(required(v, 'user'), verb === 'disable');
      return { userId: user.userId, status: user.status, disabledAt: user.disabledAt };
    },
    output: 'fields',
  })),
  {
    name: 'signing-key rotate',
    summary: 'sign wallet tokens with a new key; the old one verifies until its tokens expire',
    flags: {},
    run: async (_v, u) => ({ ...(await u.rotateSigningKey.execute()) }),
    output: 'fields',
  },
];
