import { z } from 'zod';
import { EMAIL_MAX_LENGTH } from '../../../domain/identity/email-address.js';
import { PASSWORD_LENGTH } from '../../../domain/identity/password-policy.js';
import { pageQueryFields } from '../page.schemas.js';
import { externalUserRefSchema } from './auth.schemas.js';
import { livemodeField, moneySchema } from './transactions.schemas.js';

export const createUserSchema = z
  .object({
    externalUserRef: externalUserRefSchema,
    // The email and password rules are the domain's (checkEmailAddress, checkNewPassword); the
    // schema only takes strings and documents those rules.
    email: z
      .string()
      .optional()
      .meta({
        format: 'email',
        maxLength: EMAIL_MAX_LENGTH,
        description:
          'The login address: a dot-atom local part of at most 64 octets (no quoting), a domain of at least two labels of 1..63 octets ' +
          '(letters, digits, inner hyphens; no empty label), a top-level label that is not numeric; 254 octets in all',
      }),
    password: z.string().optional().meta({
      description: 'Lets the person use /auth/login; needs email',
      minLength: PASSWORD_LENGTH.min,
      maxLength: PASSWORD_LENGTH.max,
    }),
  })
  .meta({ id: 'CreateWalletUserRequest' });

export const listUsersQuery = z.object({
  ...pageQueryFields,
});

export const userParams = z.object({ userId: z.string().min(1).max(128) });

const walletUser = z.object({
  id: z.string(),
  externalUserRef: z.string(),
  email: z.string().nullable(),
  createdAt: z.iso.datetime().meta({ description: 'RFC 3339 UTC' }),
});

/** A wallet user as the `wallet_user.created` event's `data` carries it. */
export const walletUserDataSchema = walletUser.meta({
  id: 'WalletUserData',
  description: 'A wallet holder of the tenant, as an event carries it',
});

export const walletUserSchema = walletUser
  .extend({ livemode: livemodeField })
  .meta({ id: 'WalletUser', description: 'A wallet holder of the tenant' });

/** What the tenant's own reads of its users show: the user and its available balance. */
export const userWithBalanceSchema = walletUser
  .extend({ balance: moneySchema, livemode: livemodeField })
  .meta({ id: 'WalletUserWithBalance', description: 'A wallet holder of the tenant and its available balance' });
export const userWithBalancePageSchema = z
  .object({ data: z.array(userWithBalanceSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'WalletUserPage' });
