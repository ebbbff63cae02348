import { BOOKING_COMMANDS, type AdminUseCases, type ServiceCommand } from '../adapters/cli/admin.js';
import { MAINTENANCE_COMMANDS } from '../adapters/cli/maintenance-commands.js';
import { WALLET_IDENTITY_COMMANDS } from '../adapters/cli/wallet-commands.js';
import { databaseMaintenance } from './maintenance.js';
import type { Service } from './service.js';

/** Every admin command: booking, wallet and the database's maintenance. */
export const ADMIN_COMMANDS: readonly ServiceCommand[] = [...BOOKING_COMMANDS, ...WALLET_IDENTITY_COMMANDS, ...MAINTENANCE_COMMANDS];

/** What the admin commands of a composed service drive: its core's operator area and its database. */
export const adminUseCases = (service: Service): AdminUseCases => ({
  ...service.core.admin,
  maintenance: databaseMaintenance(service.db, service.core.admin.purgeExpired),
});
