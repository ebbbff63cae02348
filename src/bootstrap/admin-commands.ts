import { BOOKING_COMMANDS, type AdminUseCases, type ServiceCommand } from '../adapters/cli/admin.js';
import { WALLET_IDENTITY_COMMANDS } from '../adapters/cli/wallet-commands.js';
import type { Service } from './service.js';
import { TOKENS } from './tokens.js';

/** Every admin command, booking and wallet. */
export const ADMIN_COMMANDS: readonly ServiceCommand[] = [...BOOKING_COMMANDS, ...WALLET_IDENTITY_COMMANDS];

/** Resolves the admin use cases from a composed service. */
export const adminUseCases = (service: Service): AdminUseCases => {
  const c = service.container;
  return {
    seedCatalogue: c.get(TOKENS.SeedCatalogue),
    createChannel: c.get(TOKENS.CreateChannel),
    updateChannel: c.get(TOKENS.UpdateChannel),
    listChannels: c.get(TOKENS.ListChannels),
    listAgentKeys: c.get(TOKENS.ListAgentKeys),
    createAgent: c.get(TOKENS.CreateAgent),
    setAgentStatus: c.get(TOKENS.SetAgentStatus),
    listAgents: c.get(TOKENS.ListAgents),
    showAgent: c.get(TOKENS.ShowAgent),
    setAgentChannel: c.get(TOKENS.SetAgentChannel),
    issueApiKey: c.get(TOKENS.IssueApiKey),
    revokeApiKey: c.get(TOKENS.RevokeApiKey),
    seedDemo: c.get(TOKENS.SeedDemo),
    createTenant: c.get(TOKENS.CreateTenant),
    createWalletUser: c.get(TOKENS.CreateWalletUser),
    rotateSigningKey: c.get(TOKENS.RotateSigningKey),
    listTenants: c.get(TOKENS.ListTenants),
    rotateClientSecret: c.get(TOKENS.RotateClientSecret),
    listTenantUsers: c.get(TOKENS.ListTenantUsers),
    setWalletUserDisabled: c.get(TOKENS.SetWalletUserDisabled),
  };
};
