import { z } from 'zod';
import { PAGE_LIMITS } from '../../../domain/shared/page.js';
import { externalUserRefSchema } from './auth.schemas.js';
import { moneySchema } from './transactions.schemas.js';

export const createUserSchema = z
  .object({
    externalUserRef: externalUserRefSchema,
    email: z.email().max(254).optional(),
    password: z.string().min(8).max(256).optional().meta({ description: 'Lets the person use /auth/login; needs email' }),
  })
  .meta({ id: 'CreateWalletUserRequest' });

export const listUsersQuery = z.object({
  cursor: z.string().min(1).max(256).optional(),
  limit: z.coerce.number().int().min(PAGE_LIMITS.min).max(PAGE_LIMITS.max).default(PAGE_LIMITS.default),
});

export const userParams = z.object({ userId: z.string().min(1).max(128) });

const walletUser = z.object({
  id: z.string(),
  externalUserRef: z.string(),
  email: z.string().nullable(),
  createdAt: z.iso.datetime().meta({ description: 'RFC 3339 UTC' }),
});

export const walletUserSchema = walletUser.meta({ id: 'WalletUser', description: 'A wallet holder of the tenant' });

export const userPageSchema = z.object({ data: z.array(walletUserSchema), nextCursor: z.string().nullable() });

/** What the tenant's own reads of its users show: the user and its available balance. */
export const userWithBalanceSchema = walletUser
  .extend({ balance: moneySchema })
  .meta({ id: 'WalletUserWithBalance', description: 'A wallet holder of the tenant and its available balance' });
export const userWithBalancePageSchema = z
  .object({ data: z.array(userWithBalanceSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'WalletUserPage' });
