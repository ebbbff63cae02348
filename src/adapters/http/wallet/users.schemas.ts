import { z } from 'zod';
import { EMAIL_MAX_LENGTH } from '../../../domain/identity/email-address.js';
import { PASSWORD_LENGTH } from '../../../domain/identity/password-policy.js';
import { pageQueryFields } from '../page.schemas.js';
import { externalUserRefSchema } from './auth.schemas.js';
import { moneySchema } from './transactions.schemas.js';

export const createUserSchema = z.object({
  externalUserRef: externalUserRefSchema,
  // The email and password rules are the domain's (checkEmailAddress, checkNewPassword); the
  // schema only takes strings and documents those rules.
  email: z.string().optional().meta({ format: 'email', maxLength: EMAIL_MAX_LENGTH }),
  password: z
    .string()
    .optional()
    .meta({ description: 'Lets the person use /auth/login; needs email', minLength: PASSWORD_LENGTH.min, maxLength: PASSWORD_LENGTH.max }),
});

export const listUsersQuery = z.object({
  ...pageQueryFields,
});

export const userParams = z.object({ userId: z.string().min(1).max(128) });

export const walletUserSchema = z.object({
  id: z.string().meta({ example: 'usr_01JABCDEF0123456789ABCDEFG' }),
  externalUserRef: z.string(),
  email: z.string().nullable(),
  createdAt: z.iso.datetime().meta({ description: 'RFC 3339 UTC' }),
});

/** What the tenant's own reads of its users show: the user and its available balance. */
export const userWithBalanceSchema = walletUserSchema.extend({ balance: moneySchema });
export const userWithBalancePageSchema = z.object({ data: z.array(userWithBalanceSchema), nextCursor: z.string().nullable() });
