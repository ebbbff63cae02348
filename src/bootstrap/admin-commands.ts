import { BOOKING_COMMANDS, type AdminUseCases, type ServiceCommand } from '../adapters/cli/admin.js';
import { MAINTENANCE_COMMANDS } from '../adapters/cli/maintenance-commands.js';
import { OPERATOR_COMMANDS } from '../adapters/cli/operator-commands.js';
import { BILLING_COMMANDS } from '../adapters/cli/billing-commands.js';
import { WALLET_IDENTITY_COMMANDS } from '../adapters/cli/wallet-commands.js';
import { SANDBOX_COMMANDS } from '../adapters/cli/sandbox-commands.js';
import { databaseMaintenance } from './maintenance.js';
import type { ComposedCore } from './core-container.js';

/** Every admin command: booking, the catalogue's operators, wallet, the sandbox and the database's maintenance. */
export const ADMIN_COMMANDS: readonly ServiceCommand[] = [
  ...BOOKING_COMMANDS,
  ...OPERATOR_COMMANDS,
  ...BILLING_COMMANDS,
  ...WALLET_IDENTITY_COMMANDS,
  ...SANDBOX_COMMANDS,
  ...MAINTENANCE_COMMANDS,
];

/**
 * What the admin commands drive: the operator area of a composed core and its database (the
 * admin command line's own composition, or a running service's).
 */
export const adminUseCases = (composed: Pick<ComposedCore, 'core' | 'db'>): AdminUseCases => ({
  ...composed.core.admin,
  maintenance: databaseMaintenance(composed.db, composed.core.admin.purgeExpired),
});
