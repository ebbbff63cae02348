import { BOOKING_COMMANDS, type AdminUseCases, type ServiceCommand } from '../adapters/cli/admin.js';
import { WALLET_IDENTITY_COMMANDS } from '../adapters/cli/wallet-commands.js';
import type { Service } from './service.js';

/** Every admin command, booking and wallet. */
export const ADMIN_COMMANDS: readonly ServiceCommand[] = [...BOOKING_COMMANDS, ...WALLET_IDENTITY_COMMANDS];

/** The admin use cases of a composed service: its core's operator area. */
export const adminUseCases = (service: Service): AdminUseCases => service.core.admin;
